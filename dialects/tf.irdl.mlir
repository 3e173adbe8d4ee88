// The `tf` dialect in IRDL, for upstream MLIR: mlir-opt-19 --irdl-file=F,
// F = cat dialects/*.irdl.mlir, verifies the text of tf-opt --print-irdl-generic.
// Generated from tilefoundry/dialects by `make dialects` (python -m
// tilefoundry.tools.generators.irdl_export): do not edit. Reference: docs/dialects/.
irdl.dialect @tf {
  // #tf.op: A registered Op with its attribute values: the target of a value- or effect-form call.
  irdl.attribute @op {
    %op_name = irdl.base "#builtin.string"
    %values = irdl.base "#builtin.dictionary"
    irdl.parameters(%op_name, %values)
  }

  // #tf.dims: The tensor encoding that names each dynamic dimension by its `DimVar`, in order.
  irdl.attribute @dims {
    %names = irdl.base "#builtin.array"  // of #builtin.string (IRDL 19 states no array elements)
    %los = irdl.base "#builtin.array"  // of #builtin.integer (IRDL 19 states no array elements)
    %his = irdl.base "#builtin.array"  // of #builtin.integer (IRDL 19 states no array elements)
    irdl.parameters(%names, %los, %his)
  }

  // !tf.buffer: The type of a TIR buffer: memory of a tensor's shape and dtype that ops write in
  // place.
  irdl.type @buffer {
    %shape = irdl.base "#builtin.array"  // of #builtin.integer (IRDL 19 states no array elements)
    %element_type = irdl.any
    %encoding = irdl.any
    irdl.parameters(%shape, %element_type, %encoding)
  }

  // #tf.range: The half-open sub-range `[lo, hi)` of a named DimVar.
  irdl.attribute @range {
    %dim_var = irdl.base "#builtin.string"
    %lo = irdl.base "#builtin.integer"
    %hi = irdl.base "#builtin.integer"
    irdl.parameters(%dim_var, %lo, %hi)
  }

  // #tf.span_end: Where a source span ends: the metadata of the fused location that holds a range.
  irdl.attribute @span_end {
    %end_line_0 = irdl.base "#builtin.integer"
    %end_line_1 = irdl.is none
    %end_line = irdl.any_of(%end_line_0, %end_line_1)
    %end_column = irdl.base "#builtin.integer"
    irdl.parameters(%end_line, %end_column)
  }

  // #tf.meta: A metadata value of a class other than binding and source span, by class name and
  // fields.
  irdl.attribute @meta {
    %kind = irdl.base "#builtin.string"
    %fields = irdl.base "#builtin.dictionary"
    irdl.parameters(%kind, %fields)
  }

  // #tf.target: The target a `tf.module` declares.
  irdl.attribute @target {
    %target_name = irdl.base "#builtin.string"
    irdl.parameters(%target_name)
  }

  // #tf.topology: One level of a declared hierarchy.
  irdl.attribute @topology {
    %level = irdl.base "#builtin.string"
    %extent_0 = irdl.base "#builtin.integer"
    %extent_1 = irdl.is none
    %extent = irdl.any_of(%extent_0, %extent_1)
    irdl.parameters(%level, %extent)
  }

  // #tf.context: The execution context an owner outside the IR provides to a module: the target and
  // the topology hierarchy that module resolves through that owner (`none`: the owner chain
  // declares none). A detached copy of an owned module (`Module.cloned()` of a child) carries it,
  // so that it resolves, in Python and in text, what its original resolves.
  irdl.attribute @context {
    %target_0 = irdl.base @tf::@target
    %target_1 = irdl.is none
    %target = irdl.any_of(%target_0, %target_1)
    %topologies_0 = irdl.base "#builtin.array"  // of #tf.topology (IRDL 19 states no array elements)
    %topologies_1 = irdl.is none
    %topologies = irdl.any_of(%topologies_0, %topologies_1)
    irdl.parameters(%target, %topologies)
  }

  // tf.module: A module: functions, child modules, an optional entry, its execution domain (target,
  // topologies), configuration metadata.
  // optional attribute "module_name": #builtin.string
  // optional attribute "entry": #builtin.symbol_ref
  // optional attribute "target": #tf.target
  // optional attribute "topologies": #builtin.array of #tf.topology
  // optional attribute "metadata": #builtin.dictionary
  // optional attribute "owner_context": #tf.context
  // traits (checked by tf-opt, not stated in IRDL 19): IsolatedFromAbove, ModuleMember,
  // NoTerminator, SymbolOpInterface, SymbolTable
  irdl.operation @module {
    %sym_name = irdl.base "#builtin.string"
    irdl.attributes {"sym_name" = %sym_name}
    %body = irdl.region with size 1
    irdl.regions(%body)
  }

  // tf.call: A call of a registered Op, or of a function of the module tree (`Call` in the spec).
  // operands "args": 16 variadic groups, one per run of operands of one type, sized by
  // operand_segment_sizes (IRDL 19 binds one type per group)
  // traits (checked by tf-opt, not stated in IRDL 19): CallEffects, CallFolder, CallSpeculation,
  // CallSymbolUse, Canonicalization, Expression
  irdl.operation @call {
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
    %callee_0 = irdl.base @tf::@op
    %callee_1 = irdl.base "#builtin.symbol_ref"
    %callee = irdl.any_of(%callee_0, %callee_1)
    irdl.attributes {"callee" = %callee}
  }

  // tf.constant: A literal tensor (`Constant` in the spec); a scalar is a rank-0 tensor.
  // traits (checked by tf-opt, not stated in IRDL 19): ConstantFolder, ConstantLike, Expression,
  // Pure
  irdl.operation @constant {
    %result = irdl.base "!builtin.tensor"
    irdl.results(%result)
    %value = irdl.base "#builtin.dense_int_or_fp_elements"
    irdl.attributes {"value" = %value}
  }

  // tf.tuple: The value-level multi-output aggregate (`Tuple` in the spec); its type is a
  // `TupleType`.
  // operands "elements": 16 variadic groups, one per run of operands of one type, sized by
  // operand_segment_sizes (IRDL 19 binds one type per group)
  // traits (checked by tf-opt, not stated in IRDL 19): Expression, Pure
  irdl.operation @tuple {
    %elements_run0_0 = irdl.base "!builtin.tensor"
    %elements_run0_1 = irdl.base "!builtin.tuple"
    %elements_run0_2 = irdl.base @tf::@buffer
    %elements_run0 = irdl.any_of(%elements_run0_0, %elements_run0_1, %elements_run0_2)
    %elements_run1_0 = irdl.base "!builtin.tensor"
    %elements_run1_1 = irdl.base "!builtin.tuple"
    %elements_run1_2 = irdl.base @tf::@buffer
    %elements_run1 = irdl.any_of(%elements_run1_0, %elements_run1_1, %elements_run1_2)
    %elements_run2_0 = irdl.base "!builtin.tensor"
    %elements_run2_1 = irdl.base "!builtin.tuple"
    %elements_run2_2 = irdl.base @tf::@buffer
    %elements_run2 = irdl.any_of(%elements_run2_0, %elements_run2_1, %elements_run2_2)
    %elements_run3_0 = irdl.base "!builtin.tensor"
    %elements_run3_1 = irdl.base "!builtin.tuple"
    %elements_run3_2 = irdl.base @tf::@buffer
    %elements_run3 = irdl.any_of(%elements_run3_0, %elements_run3_1, %elements_run3_2)
    %elements_run4_0 = irdl.base "!builtin.tensor"
    %elements_run4_1 = irdl.base "!builtin.tuple"
    %elements_run4_2 = irdl.base @tf::@buffer
    %elements_run4 = irdl.any_of(%elements_run4_0, %elements_run4_1, %elements_run4_2)
    %elements_run5_0 = irdl.base "!builtin.tensor"
    %elements_run5_1 = irdl.base "!builtin.tuple"
    %elements_run5_2 = irdl.base @tf::@buffer
    %elements_run5 = irdl.any_of(%elements_run5_0, %elements_run5_1, %elements_run5_2)
    %elements_run6_0 = irdl.base "!builtin.tensor"
    %elements_run6_1 = irdl.base "!builtin.tuple"
    %elements_run6_2 = irdl.base @tf::@buffer
    %elements_run6 = irdl.any_of(%elements_run6_0, %elements_run6_1, %elements_run6_2)
    %elements_run7_0 = irdl.base "!builtin.tensor"
    %elements_run7_1 = irdl.base "!builtin.tuple"
    %elements_run7_2 = irdl.base @tf::@buffer
    %elements_run7 = irdl.any_of(%elements_run7_0, %elements_run7_1, %elements_run7_2)
    %elements_run8_0 = irdl.base "!builtin.tensor"
    %elements_run8_1 = irdl.base "!builtin.tuple"
    %elements_run8_2 = irdl.base @tf::@buffer
    %elements_run8 = irdl.any_of(%elements_run8_0, %elements_run8_1, %elements_run8_2)
    %elements_run9_0 = irdl.base "!builtin.tensor"
    %elements_run9_1 = irdl.base "!builtin.tuple"
    %elements_run9_2 = irdl.base @tf::@buffer
    %elements_run9 = irdl.any_of(%elements_run9_0, %elements_run9_1, %elements_run9_2)
    %elements_run10_0 = irdl.base "!builtin.tensor"
    %elements_run10_1 = irdl.base "!builtin.tuple"
    %elements_run10_2 = irdl.base @tf::@buffer
    %elements_run10 = irdl.any_of(%elements_run10_0, %elements_run10_1, %elements_run10_2)
    %elements_run11_0 = irdl.base "!builtin.tensor"
    %elements_run11_1 = irdl.base "!builtin.tuple"
    %elements_run11_2 = irdl.base @tf::@buffer
    %elements_run11 = irdl.any_of(%elements_run11_0, %elements_run11_1, %elements_run11_2)
    %elements_run12_0 = irdl.base "!builtin.tensor"
    %elements_run12_1 = irdl.base "!builtin.tuple"
    %elements_run12_2 = irdl.base @tf::@buffer
    %elements_run12 = irdl.any_of(%elements_run12_0, %elements_run12_1, %elements_run12_2)
    %elements_run13_0 = irdl.base "!builtin.tensor"
    %elements_run13_1 = irdl.base "!builtin.tuple"
    %elements_run13_2 = irdl.base @tf::@buffer
    %elements_run13 = irdl.any_of(%elements_run13_0, %elements_run13_1, %elements_run13_2)
    %elements_run14_0 = irdl.base "!builtin.tensor"
    %elements_run14_1 = irdl.base "!builtin.tuple"
    %elements_run14_2 = irdl.base @tf::@buffer
    %elements_run14 = irdl.any_of(%elements_run14_0, %elements_run14_1, %elements_run14_2)
    %elements_run15_0 = irdl.base "!builtin.tensor"
    %elements_run15_1 = irdl.base "!builtin.tuple"
    %elements_run15_2 = irdl.base @tf::@buffer
    %elements_run15 = irdl.any_of(%elements_run15_0, %elements_run15_1, %elements_run15_2)
    irdl.operands(
        variadic %elements_run0,
        variadic %elements_run1,
        variadic %elements_run2,
        variadic %elements_run3,
        variadic %elements_run4,
        variadic %elements_run5,
        variadic %elements_run6,
        variadic %elements_run7,
        variadic %elements_run8,
        variadic %elements_run9,
        variadic %elements_run10,
        variadic %elements_run11,
        variadic %elements_run12,
        variadic %elements_run13,
        variadic %elements_run14,
        variadic %elements_run15
    )
    %result = irdl.base "!builtin.tuple"
    irdl.results(%result)
  }

  // tf.mesh: A region whose ops run over one effective topology level (`Mesh` in the spec).
  // traits (checked by tf-opt, not stated in IRDL 19): Expression, RecursiveMemoryEffect
  irdl.operation @mesh {
    %res_0 = irdl.base "!builtin.tensor"
    %res_1 = irdl.base "!builtin.tuple"
    %res_2 = irdl.base @tf::@buffer
    %res = irdl.any_of(%res_0, %res_1, %res_2)
    irdl.results(optional %res)
    %topology = irdl.base "#builtin.string"
    irdl.attributes {"topology" = %topology}
    %body = irdl.region with size 1
    irdl.regions(%body)
  }

  // tf.yield: Ends a `tf.mesh` body with its value.
  // traits (checked by tf-opt, not stated in IRDL 19): HasParent(tf.mesh), IsTerminator, Pure
  irdl.operation @yield {
    %values_0 = irdl.base "!builtin.tensor"
    %values_1 = irdl.base "!builtin.tuple"
    %values_2 = irdl.base @tf::@buffer
    %values = irdl.any_of(%values_0, %values_1, %values_2)
    irdl.operands(variadic %values)
  }
}
