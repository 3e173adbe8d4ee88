"""Print the module tree `tilefoundry.from_torch` makes of a small torch.nn MLP."""

from __future__ import annotations

import torch

import tilefoundry as tf

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))
loaded = tf.from_torch(model, (torch.randn(4, 16),))
print(tf.print_module(loaded.module))
