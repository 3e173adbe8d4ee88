"""The PyTorch frontend: `from_torch(model, example_args)` and `from_exported_program(ep)`.

```python
import torch, tilefoundry as tf
loaded = tf.from_torch(model, (ids,), {"use_cache": False})   # a LoadedModule
loaded.module.model.layers                                     # the Module tree, by attribute
logits = loaded(ids.numpy())                                   # runs on numpy
```

torch is imported by these functions only (`import tilefoundry` never imports it); see
`docs/frontends.md` for the mapping rules, the supported ops and what is refused.
"""

from __future__ import annotations

from tilefoundry.frontends.torch.errors import TorchImportError
from tilefoundry.frontends.torch.importer import from_exported_program, from_torch

__all__ = ["TorchImportError", "from_exported_program", "from_torch"]
