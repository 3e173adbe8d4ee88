// The `tir` dialect in IRDL, for upstream MLIR: mlir-opt-19 --irdl-file=F,
// F = cat dialects/*.irdl.mlir, verifies the text of tf-opt --print-irdl-generic.
// Generated from tilefoundry/dialects by `make dialects` (python -m
// tilefoundry.tools.generators.irdl_export): do not edit. Reference: docs/dialects/.
irdl.dialect @tir {
  // tir.prim_func: A TIR function: named parameters and a body of statements.
  // optional attribute "arg_attrs": #builtin.array of #builtin.dictionary
  // traits (checked by tf-opt, not stated in IRDL 19): FunctionCallable, IsolatedFromAbove,
  // ModuleMember, NoTerminator, SymbolOpInterface
  irdl.operation @prim_func {
    %sym_name = irdl.base "#builtin.string"
    %function_type = irdl.base "!builtin.function"
    %param_names = irdl.base "#builtin.array"  // of #builtin.string (IRDL 19 states no array elements)
    irdl.attributes {
        "sym_name" = %sym_name,
        "function_type" = %function_type,
        "param_names" = %param_names
    }
    %body = irdl.region with size 1
    irdl.regions(%body)
  }

  // tir.let: `LetStmt`: anchors a value-form expression and binds its value to a Var.
  // traits (checked by tf-opt, not stated in IRDL 19): AnchorsAllocation, Canonicalization,
  // HasParent(tir.prim_func), RecursiveMemoryEffect
  irdl.operation @let {
    %binding_0 = irdl.base "!builtin.tensor"
    %binding_1 = irdl.base "!builtin.tuple"
    %binding_2 = irdl.base @tf::@buffer
    %binding = irdl.any_of(%binding_0, %binding_1, %binding_2)
    irdl.results(%binding)
    %body = irdl.region with size 1
    irdl.regions(%body)
  }

  // tir.evaluate: `Evaluate(op, args)`: runs an effect-form call as a statement.
  // traits (checked by tf-opt, not stated in IRDL 19): HasParent(tir.prim_func),
  // RecursiveMemoryEffect
  irdl.operation @evaluate {
    %body = irdl.region with size 1
    irdl.regions(%body)
  }

  // tir.yield: Ends a statement body: the value a `tir.let` binds, nothing for a `tir.evaluate`.
  // traits (checked by tf-opt, not stated in IRDL 19): HasParent(tir.let, tir.evaluate),
  // IsTerminator, Pure
  irdl.operation @yield {
    %values_0 = irdl.base "!builtin.tensor"
    %values_1 = irdl.base "!builtin.tuple"
    %values_2 = irdl.base @tf::@buffer
    %values = irdl.any_of(%values_0, %values_1, %values_2)
    irdl.operands(variadic %values)
  }

  // tir.dispatch: `DispatchCall`: calls the first case whose `case_patterns` hold the runtime
  // DimVar sizes.
  // operands "args": 16 variadic groups, one per run of operands of one type, sized by
  // operand_segment_sizes (IRDL 19 binds one type per group)
  // traits (checked by tf-opt, not stated in IRDL 19): DispatchEffects, DispatchSymbolUse,
  // Expression
  irdl.operation @dispatch {
    %args_run0_0 = irdl.base "!builtin.tensor"
    %args_run0_1 = irdl.base "!builtin.tuple"
    %args_run0_2 = irdl.base @tf::@buffer
    %args_run0 = irdl.any_of(%args_run0_0, %args_run0_1, %args_run0_2)
    %args_run1_0 = irdl.base "!builtin.tensor"
    %args_run1_1 = irdl.base "!builtin.tuple"
    %args_run1_2 = irdl.base @tf::@buffer
    %args_run1 = irdl.any_of(%args_run1_0, %args_run1_1, %args_run1_2)
    %args_run2_0 = irdl.base "!builtin.tensor"
    %args_run2_1 = irdl.base "!builtin.tuple"
    %args_run2_2 = irdl.base @tf::@buffer
    %args_run2 = irdl.any_of(%args_run2_0, %args_run2_1, %args_run2_2)
    %args_run3_0 = irdl.base "!builtin.tensor"
    %args_run3_1 = irdl.base "!builtin.tuple"
    %args_run3_2 = irdl.base @tf::@buffer
    %args_run3 = irdl.any_of(%args_run3_0, %args_run3_1, %args_run3_2)
    %args_run4_0 = irdl.base "!builtin.tensor"
    %args_run4_1 = irdl.base "!builtin.tuple"
    %args_run4_2 = irdl.base @tf::@buffer
    %args_run4 = irdl.any_of(%args_run4_0, %args_run4_1, %args_run4_2)
    %args_run5_0 = irdl.base "!builtin.tensor"
    %args_run5_1 = irdl.base "!builtin.tuple"
    %args_run5_2 = irdl.base @tf::@buffer
    %args_run5 = irdl.any_of(%args_run5_0, %args_run5_1, %args_run5_2)
    %args_run6_0 = irdl.base "!builtin.tensor"
    %args_run6_1 = irdl.base "!builtin.tuple"
    %args_run6_2 = irdl.base @tf::@buffer
    %args_run6 = irdl.any_of(%args_run6_0, %args_run6_1, %args_run6_2)
    %args_run7_0 = irdl.base "!builtin.tensor"
    %args_run7_1 = irdl.base "!builtin.tuple"
    %args_run7_2 = irdl.base @tf::@buffer
    %args_run7 = irdl.any_of(%args_run7_0, %args_run7_1, %args_run7_2)
    %args_run8_0 = irdl.base "!builtin.tensor"
    %args_run8_1 = irdl.base "!builtin.tuple"
    %args_run8_2 = irdl.base @tf::@buffer
    %args_run8 = irdl.any_of(%args_run8_0, %args_run8_1, %args_run8_2)
    %args_run9_0 = irdl.base "!builtin.tensor"
    %args_run9_1 = irdl.base "!builtin.tuple"
    %args_run9_2 = irdl.base @tf::@buffer
    %args_run9 = irdl.any_of(%args_run9_0, %args_run9_1, %args_run9_2)
    %args_run10_0 = irdl.base "!builtin.tensor"
    %args_run10_1 = irdl.base "!builtin.tuple"
    %args_run10_2 = irdl.base @tf::@buffer
    %args_run10 = irdl.any_of(%args_run10_0, %args_run10_1, %args_run10_2)
    %args_run11_0 = irdl.base "!builtin.tensor"
    %args_run11_1 = irdl.base "!builtin.tuple"
    %args_run11_2 = irdl.base @tf::@buffer
    %args_run11 = irdl.any_of(%args_run11_0, %args_run11_1, %args_run11_2)
    %args_run12_0 = irdl.base "!builtin.tensor"
    %args_run12_1 = irdl.base "!builtin.tuple"
    %args_run12_2 = irdl.base @tf::@buffer
    %args_run12 = irdl.any_of(%args_run12_0, %args_run12_1, %args_run12_2)
    %args_run13_0 = irdl.base "!builtin.tensor"
    %args_run13_1 = irdl.base "!builtin.tuple"
    %args_run13_2 = irdl.base @tf::@buffer
    %args_run13 = irdl.any_of(%args_run13_0, %args_run13_1, %args_run13_2)
    %args_run14_0 = irdl.base "!builtin.tensor"
    %args_run14_1 = irdl.base "!builtin.tuple"
    %args_run14_2 = irdl.base @tf::@buffer
    %args_run14 = irdl.any_of(%args_run14_0, %args_run14_1, %args_run14_2)
    %args_run15_0 = irdl.base "!builtin.tensor"
    %args_run15_1 = irdl.base "!builtin.tuple"
    %args_run15_2 = irdl.base @tf::@buffer
    %args_run15 = irdl.any_of(%args_run15_0, %args_run15_1, %args_run15_2)
    irdl.operands(
        variadic %args_run0,
        variadic %args_run1,
        variadic %args_run2,
        variadic %args_run3,
        variadic %args_run4,
        variadic %args_run5,
        variadic %args_run6,
        variadic %args_run7,
        variadic %args_run8,
        variadic %args_run9,
        variadic %args_run10,
        variadic %args_run11,
        variadic %args_run12,
        variadic %args_run13,
        variadic %args_run14,
        variadic %args_run15
    )
    %res_0 = irdl.base "!builtin.tensor"
    %res_1 = irdl.base "!builtin.tuple"
    %res_2 = irdl.base @tf::@buffer
    %res = irdl.any_of(%res_0, %res_1, %res_2)
    irdl.results(optional %res)
    %callees = irdl.base "#builtin.array"  // of #builtin.symbol_ref (IRDL 19 states no array elements)
    %case_patterns = irdl.base "#builtin.array"  // of #builtin.array of #tf.range (IRDL 19 states no array elements)
    irdl.attributes {"callees" = %callees, "case_patterns" = %case_patterns}
  }

  // tir.return: Ends a prim function's body, with its value when it has one.
  // traits (checked by tf-opt, not stated in IRDL 19): HasParent(tir.prim_func), IsTerminator,
  // ReturnLike
  irdl.operation @return {
    %values_0 = irdl.base "!builtin.tensor"
    %values_1 = irdl.base "!builtin.tuple"
    %values_2 = irdl.base @tf::@buffer
    %values = irdl.any_of(%values_0, %values_1, %values_2)
    irdl.operands(variadic %values)
  }
}
