// The `hir` dialect in IRDL, for upstream MLIR: mlir-opt-19 --irdl-file=F,
// F = cat dialects/*.irdl.mlir, verifies the text of tf-opt --print-irdl-generic.
// Generated from tilefoundry/dialects by `make dialects` (python -m
// tilefoundry.tools.generators.irdl_export): do not edit. Reference: docs/dialects/.
irdl.dialect @hir {
  // hir.func: An HIR function: named parameters, a body, one result (or none), and its variants.
  // optional attribute "arg_attrs": #builtin.array of #builtin.dictionary
  // region "variants" is optional: the IRDL form writes an absent one as an empty region (IRDL 19
  // states a fixed number of regions)
  // traits (checked by tf-opt, not stated in IRDL 19): FunctionCallable, IsolatedFromAbove,
  // ModuleMember, NoTerminator, SymbolOpInterface
  irdl.operation @func {
    %sym_name = irdl.base "#builtin.string"
    %function_type = irdl.base "!builtin.function"
    %param_names = irdl.base "#builtin.array"  // of #builtin.string (IRDL 19 states no array elements)
    irdl.attributes {
        "sym_name" = %sym_name,
        "function_type" = %function_type,
        "param_names" = %param_names
    }
    %body = irdl.region with size 1
    %variants = irdl.region
    irdl.regions(%body, %variants)
  }

  // hir.variant: A shape-specialization variant of its function: the same signature, another body,
  // for the sub-ranges of DimVars it covers.
  // traits (checked by tf-opt, not stated in IRDL 19): HasParent(hir.func), IsolatedFromAbove
  irdl.operation @variant {
    %ranges = irdl.base "#builtin.array"  // of #tf.range (IRDL 19 states no array elements)
    irdl.attributes {"ranges" = %ranges}
    %body = irdl.region with size 1
    irdl.regions(%body)
  }

  // hir.return: Ends a function (or variant) body with its value, or nothing for an effect-only
  // one.
  // traits (checked by tf-opt, not stated in IRDL 19): HasParent(hir.func, hir.variant),
  // IsTerminator, ReturnLike
  irdl.operation @return {
    %values_0 = irdl.base "!builtin.tensor"
    %values_1 = irdl.base "!builtin.tuple"
    %values_2 = irdl.base @tf::@buffer
    %values = irdl.any_of(%values_0, %values_1, %values_2)
    irdl.operands(variadic %values)
  }
}
