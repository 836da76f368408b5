"""``prefetch(arr, i)``: ask the CPU to bring ``arr[i]``'s cache line closer.

A hint compiled to one instruction (``llvm.prefetch``, read, high locality);
it never faults, so ``i`` may lie outside the array. Search kernels use it on
nodes they will expand soon (see :mod:`navkit._kernels.search`). With
``NUMBA_DISABLE_JIT=1`` it is a Python no-op.
"""

from __future__ import annotations

from typing import Any

from numba.core import config

if config.DISABLE_JIT:

    def prefetch(arr: Any, i: Any) -> None:
        """No-op without the JIT."""

else:
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx, arr, i):  # type: ignore[no-untyped-def]
        if not isinstance(arr, types.Array) or not isinstance(i, types.Integer):
            return None
        sig = types.void(arr, i)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            aryty, ity = signature.args
            ary = context.make_array(aryty)(context, builder, args[0])
            idx = context.cast(builder, args[1], ity, types.intp)
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                "llvm.prefetch.p0")
            ptr = builder.bitcast(builder.gep(ary.data, [idx]), i8p)
            builder.call(fn, [ptr, i32(0), i32(3), i32(1)])  # read, high locality, data cache
            return context.get_dummy_value()

        return sig, codegen

    from .._numba_config import stable_identity

    stable_identity(prefetch, f"{__name__}.prefetch")
