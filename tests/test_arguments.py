"""Argument handling as torch's (issue 11, part 2): NumPy scalars in type promotion and
tensor creation, and torch's exception class and text for arguments torch refuses."""
import warnings

import numpy as np
import pytest

from compare import same, same_error


def _result(tensor):
    return str(tensor.dtype), tensor.tolist()


def _read_only(array):
    array.setflags(write=False)
    return array


def _imul(x, number):
    x *= number
    return x


# Each scenario builds its tensors with lib: value and dtype must be torch's.
NUMPY_SCALARS = {
    "float32_plus_np_float64": lambda lib: lib.ones(3) + np.float64(2),
    "np_float64_plus_float32": lambda lib: np.float64(2) + lib.ones(3),
    "float32_times_np_float32": lambda lib: lib.ones(3) * np.float32(2),
    "int64_times_np_int64": lambda lib: lib.arange(3) * np.int64(2),
    "int32_times_np_int64": lambda lib: lib.arange(3, dtype=lib.int32) * np.int64(2),
    "uint8_plus_np_int8": lambda lib: lib.arange(3, dtype=lib.uint8) + np.int8(2),
    "int64_plus_np_float64": lambda lib: lib.arange(3) + np.float64(0.5),
    "int64_plus_np_bool": lambda lib: lib.arange(3) + np.bool_(True),
    "float32_imul_np_int64": lambda lib: _imul(lib.ones(2), np.int64(3)),
    "int64_imul_np_int64": lambda lib: _imul(lib.arange(2), np.int64(3)),
    "add_np_scalar": lambda lib: lib.add(lib.ones(2), np.float64(2)),
    "clamp_np_int": lambda lib: lib.clamp(lib.arange(3), np.int64(1)),
    "int_pow_np_int": lambda lib: lib.arange(3) ** np.int64(2),
    "float32_pow_np_float64": lambda lib: lib.ones(3) ** np.float64(2),
    "where_np_scalar": lambda lib: lib.where(lib.tensor([True, False]), lib.ones(2),
                                             np.float64(2)),
    "compare_np_scalar": lambda lib: lib.ones(2) > np.float64(0.5),
    "tensor_of_np_float64_list": lambda lib: lib.tensor([np.float64(1)]),
    "tensor_of_np_float32_list": lambda lib: lib.tensor([np.float32(1), 1.0]),
    "tensor_of_np_int32_list": lambda lib: lib.tensor([np.int32(1)]),
    "tensor_of_np_int32_and_int": lambda lib: lib.tensor([np.int32(1), 1]),
    "tensor_of_np_int32_and_int8": lambda lib: lib.tensor([np.int32(1), np.int8(1)]),
    "tensor_of_int_and_np_float64": lambda lib: lib.tensor([1, np.float64(1)]),
    "tensor_of_np_float16_and_int": lambda lib: lib.tensor([np.float16(1), 1]),
    "tensor_of_nested_np_scalars": lambda lib: lib.tensor([[np.float32(1)], [np.float64(2)]]),
    "tensor_of_np_bool_list": lambda lib: lib.tensor([np.bool_(True)]),
    "tensor_of_ndarrays": lambda lib: lib.tensor([np.ones(2), np.zeros(2)]),
    "as_tensor_of_read_only_array": lambda lib: lib.as_tensor(_read_only(np.zeros(2))).add_(1),
    "from_numpy_of_read_only_array": lambda lib: lib.from_numpy(_read_only(np.zeros(2))).add_(1),
    "randperm_zero": lambda lib: lib.randperm(0),
    "arange_reversed_empty": lambda lib: lib.arange(5, 5, -1),
    "tensor_of_np_float64": lambda lib: lib.tensor(np.float64(1)),
    "full_np_float64": lambda lib: lib.full((2,), np.float64(1)),
    "full_np_int64": lambda lib: lib.full((2,), np.int64(1)),
    "full_np_bool": lambda lib: lib.full((2,), np.bool_(True)),
    "tensor_of_bool_and_int": lambda lib: lib.tensor([True, 2]),
    "tensor_negative_into_uint8_wraps": lambda lib: lib.tensor([-255, -1], dtype=lib.uint8),
    "tensor_big_int_as_float64": lambda lib: lib.tensor([[2**64]], dtype=lib.float64),
    "tensor_float_to_int_truncates": lambda lib: lib.tensor([1.5], dtype=lib.int64),
    "full_float_to_int_truncates": lambda lib: lib.full((2,), 2.5, dtype=lib.int64),
    "full_negative_into_uint8_wraps": lambda lib: lib.full((2,), -1, dtype=lib.uint8),
    "add_alpha_np_float64": lambda lib: lib.ones(3).add(lib.ones(3), alpha=np.float64(2)),
    "sub_alpha_np_float64": lambda lib: lib.ones(3).sub(2, alpha=np.float64(2)),
    "rsub_alpha_np_float64": lambda lib: lib.rsub(lib.ones(3), lib.ones(3), alpha=np.float64(2)),
    "add_half_alpha_np_float64": lambda lib: lib.add(lib.ones(2, dtype=lib.float16),
                                                     lib.ones(2, dtype=lib.float16),
                                                     alpha=np.float64(2)),
    "add_alpha_0d_tensor": lambda lib: lib.ones(2).add(lib.ones(2), alpha=lib.tensor(2.0)),
    "add_int_alpha_np_int64": lambda lib: lib.arange(3).add(lib.arange(3), alpha=np.int64(2)),
    "add_bool_alpha_int": lambda lib: lib.ones(2, dtype=lib.bool).add(
        lib.ones(2, dtype=lib.bool), alpha=2),
    "addcmul_value_np_float64": lambda lib: lib.addcmul(lib.ones(2), lib.ones(2), lib.ones(2),
                                                        value=np.float64(2)),
    "addcdiv_value_np_float64": lambda lib: lib.addcdiv(lib.ones(2), lib.ones(2), lib.ones(2),
                                                        value=np.float64(2)),
    "lerp_weight_np_float64": lambda lib: lib.lerp(lib.zeros(2), lib.ones(2), np.float64(0.5)),
    "tensor_empty_then_longer": lambda lib: lib.tensor([[], [1]]),
    "tensor_empty_then_complex": lambda lib: lib.tensor([[], [1j]]),
    "tensor_empty_then_anything": lambda lib: lib.tensor([[], [1, [2]]]),
    "tensor_empty_deep": lambda lib: lib.tensor([[[]], [1]]),
    "tensor_empty_then_np_float64": lambda lib: lib.tensor([[], [np.float64(1)]]),
    "tensor_empty_ndarray_then_longer": lambda lib: lib.tensor([np.ones(0), np.ones(2)]),
    "tensor_empty_then_huge_int": lambda lib: lib.tensor([[], [2**70]]),
    "zeros_np_int_size": lambda lib: lib.zeros(np.int64(2)),
    "zeros_tensor_sizes": lambda lib: lib.zeros((lib.tensor([2]), lib.tensor(1))),
    "max_np_int_dim": lambda lib: lib.max(lib.ones(2, 3), np.int64(1)).values,
}


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
@pytest.mark.parametrize("name", NUMPY_SCALARS)
def test_numbers_promote_as_torch(name):
    same(lambda lib: _result(NUMPY_SCALARS[name](lib)))


def _assign_grad(lib, value):
    x = lib.ones(2, requires_grad=True)
    x.grad = value(lib)


def _set_data(lib, value):
    x = lib.ones(2)
    x.data = value
    return _result(x)


# Each scenario must raise torch's exception class and text.
REFUSED = {
    "add_lists": lambda lib: lib.add([1, 2], [3]),
    "add_list_other": lambda lib: lib.add(lib.ones(2), [1.0]),
    "add_str_other": lambda lib: lib.add(lib.ones(2), "a"),
    "maximum_list": lambda lib: lib.maximum(lib.ones(2), [1.0]),
    "matmul_list": lambda lib: lib.matmul(lib.ones(2), [1.0, 1.0]),
    "list_plus_tensor": lambda lib: [1.0, 2.0] + lib.ones(2),
    "tensor_plus_list": lambda lib: lib.ones(2) + [1.0, 2.0],
    "tensor_minus_str": lambda lib: lib.ones(2) - "a",
    "tensor_times_tuple": lambda lib: lib.ones(2) * (1.0, 2.0),
    "list_over_tensor": lambda lib: [1.0, 2.0] / lib.ones(2),
    "tensor_matmul_list": lambda lib: lib.ones(2) @ [1.0, 1.0],
    "ndarray_times_tensor": lambda lib: np.ones(2) * lib.ones(2),
    "mul_ndarray": lambda lib: lib.mul(lib.ones(2), np.ones(2)),
    "atan2_ndarray": lambda lib: lib.atan2(lib.ones(2), np.ones(2)),
    "copy_none": lambda lib: lib.ones(2).copy_(None),
    "copy_list": lambda lib: lib.ones(2).copy_([1.0, 2.0]),
    "flatten_0d_dim_3": lambda lib: lib.tensor(1.0).flatten(3),
    "flatten_0d_end_dim_1": lambda lib: lib.tensor(1.0).flatten(0, 1),
    "roll_0d_dim_0": lambda lib: lib.tensor(1.0).roll(1, 0),
    "roll_0d_dim_minus_1": lambda lib: lib.tensor(1.0).roll(1, -1),
    "roll_0d_dims_tuple": lambda lib: lib.tensor(1.0).roll((1,), (1,)),
    "index_float": lambda lib: lib.ones(3)[1.0],
    "index_np_float64": lambda lib: lib.ones(3)[np.float64(1)],
    "index_complex": lambda lib: lib.ones(3)[1j],
    "index_np_bool": lambda lib: lib.ones(3)[np.bool_(True)],
    "index_float_in_tuple": lambda lib: lib.ones(3, 3)[0, 1.0],
    "setitem_float_index": lambda lib: lib.ones(3).__setitem__(1.0, 2.0),
    "view_float_size": lambda lib: lib.ones(6).view(2.0, 3),
    "view_float_last": lambda lib: lib.ones(6).view(2, 3.0),
    "tensor_complex_into_int": lambda lib: lib.tensor([1j], dtype=lib.int64),
    "tensor_complex_into_float": lambda lib: lib.tensor([1 + 1j, 2], dtype=lib.float64),
    "tensor_of_1d_tensors": lambda lib: lib.tensor([lib.ones(2), lib.ones(2)]),
    "full_none": lambda lib: lib.full((2,), None),
    "full_str": lambda lib: lib.full((2,), "a"),
    "full_list": lambda lib: lib.full((2,), [1.0]),
    "new_full_none": lambda lib: lib.ones(2).new_full((2,), None),
    "full_like_none": lambda lib: lib.full_like(lib.ones(2), None),
    "full_overflows_uint8": lambda lib: lib.full((2,), 300, dtype=lib.uint8),
    "full_overflows_int32": lambda lib: lib.full((2,), 2**40, dtype=lib.int32),
    "full_nan_into_int64": lambda lib: lib.full((2,), float("nan"), dtype=lib.int64),
    "full_complex_into_float": lambda lib: lib.full((2,), 1j, dtype=lib.float32),
    "full_int_too_big": lambda lib: lib.full((2,), 2**70),
    "new_full_overflows": lambda lib: lib.ones(2).new_full((2,), 300, dtype=lib.uint8),
    "full_like_overflows": lambda lib: lib.full_like(lib.ones(2, dtype=lib.uint8), 300),
    "tensor_int_past_int64": lambda lib: lib.tensor([2**63]),
    "tensor_int_past_uint64": lambda lib: lib.tensor(2**64),
    "tensor_int_below_int64": lambda lib: lib.tensor([-2**63 - 1]),
    "as_tensor_int_past_int64": lambda lib: lib.as_tensor([2**63]),
    "tensor_overflows_uint8": lambda lib: lib.tensor([300], dtype=lib.uint8),
    "tensor_underflows_uint8": lambda lib: lib.tensor([-256], dtype=lib.uint8),
    "tensor_overflows_int8": lambda lib: lib.tensor([200], dtype=lib.int8),
    "tensor_float_overflows_int32": lambda lib: lib.tensor([1e10], dtype=lib.int32),
    "tensor_nan_into_int64": lambda lib: lib.tensor([float("nan")], dtype=lib.int64),
    "tensor_ragged": lambda lib: lib.tensor([[1, 2], [3]]),
    "tensor_ragged_longer": lambda lib: lib.tensor([[1], [3, 4]]),
    "tensor_ragged_deep": lambda lib: lib.tensor([[[1, 2]], [[3]]]),
    "tensor_number_then_list": lambda lib: lib.tensor([1, [2]]),
    "tensor_float_then_list": lambda lib: lib.tensor([1.0, [2]]),
    "tensor_list_then_number": lambda lib: lib.tensor([[1], 2]),
    "tensor_none": lambda lib: lib.tensor(None),
    "tensor_none_inside": lambda lib: lib.tensor([1, None]),
    "tensor_object_inside": lambda lib: lib.tensor([[1, 2], [3, object()]]),
    "tensor_list_of_str": lambda lib: lib.tensor(["a"]),
    "grad_other_dtype": lambda lib: _assign_grad(lib, lambda lib: lib.ones(2, dtype=lib.float64)),
    "grad_int_dtype": lambda lib: _assign_grad(lib, lambda lib: lib.ones(2, dtype=lib.int64)),
    "grad_other_shape": lambda lib: _assign_grad(lib, lambda lib: lib.ones(3)),
    "grad_list": lambda lib: _assign_grad(lib, lambda lib: [1.0, 2.0]),
    "data_list": lambda lib: _set_data(lib, [1.0]),
    "format_spec_on_1d": lambda lib: format(lib.ones(2), ".2f"),
    "format_align_on_1d": lambda lib: format(lib.ones(2), ">20"),
    "arange_none": lambda lib: lib.arange(None),
    "arange_to_inf": lambda lib: lib.arange(0.5, float("inf")),
    "arange_to_nan": lambda lib: lib.arange(0, float("nan")),
    "arange_wrong_step_sign": lambda lib: lib.arange(0, 5, -1),
    "arange_wrong_float_step_sign": lambda lib: lib.arange(0, 5, -1.5),
    "randperm_negative": lambda lib: lib.randperm(-1),
    "randperm_float": lambda lib: lib.randperm(2.0),
    "arange_list": lambda lib: lib.arange([1]),
    "bool_of_empty": lambda lib: bool(lib.ones(0)),
    "bool_of_two": lambda lib: bool(lib.ones(2)),
    "float_of_two": lambda lib: float(lib.ones(2)),
    "int_of_empty": lambda lib: int(lib.ones(0)),
    "complex_of_two": lambda lib: complex(lib.ones(2)),
    "item_of_two": lambda lib: lib.ones(2).item(),
    "empty_too_big": lambda lib: lib.empty(2**40, 2**40),
    "zeros_too_big": lambda lib: lib.zeros(2**40, 2**40),
    "ones_too_big": lambda lib: lib.ones(2**31, 2**31),
    "full_too_big": lambda lib: lib.full((2**62,), 1.0),
    "empty_bool_too_big": lambda lib: lib.empty((2**40, 2**40), dtype=lib.bool),
    "empty_more_than_memory": lambda lib: lib.empty(2**45),
    "new_empty_too_big": lambda lib: lib.ones(1).new_empty(2**62),
    "max_none": lambda lib: lib.max(lib.ones(2), None),
    "min_none": lambda lib: lib.min(lib.ones(2), None),
    "max_float_dim": lambda lib: lib.max(lib.ones(2), 1.0),
    "max_str": lambda lib: lib.max(lib.ones(2), "a"),
    "max_list": lambda lib: lib.max(lib.ones(2), [1]),
    "add_alpha_none": lambda lib: lib.ones(2).add(lib.ones(2), alpha=None),
    "add_alpha_str": lambda lib: lib.ones(2).add(lib.ones(2), alpha="a"),
    "add_alpha_ndarray": lambda lib: lib.ones(2).add(lib.ones(2), alpha=np.array(2.0)),
    "add_alpha_complex": lambda lib: lib.ones(2).add(lib.ones(2), alpha=1j),
    "add_alpha_false": lambda lib: lib.ones(2).add(lib.ones(2), alpha=False),
    "add_int_alpha_float": lambda lib: lib.arange(2).add(lib.arange(2), alpha=2.5),
    "sub_int_alpha_np_float": lambda lib: lib.arange(2).sub(lib.arange(2), alpha=np.float64(2)),
    "addcmul_value_none": lambda lib: lib.addcmul(lib.ones(2), lib.ones(2), lib.ones(2),
                                                  value=None),
    "tensor_empty_then_none": lambda lib: lib.tensor([[], None]),
    "tensor_empty_then_str": lambda lib: lib.tensor([[], "a"]),
    # lists, ndarrays and None where a Python-level function wants a tensor
    "index_select_list": lambda lib: lib.index_select(lib.ones(2), 0, [0]),
    "index_select_method_list": lambda lib: lib.ones(2).index_select(0, [0]),
    "index_select_keyword_list": lambda lib: lib.index_select(lib.ones(2), 0, index=[0]),
    "gather_none": lambda lib: lib.gather(lib.ones(2), 0, None),
    "cumsum_list": lambda lib: lib.cumsum([1.0], 0),
    "sort_list": lambda lib: lib.sort([1.0]),
    "sum_list": lambda lib: lib.sum([1.0]),
    "prod_none": lambda lib: lib.prod(None),
    "square_ndarray": lambda lib: lib.square(np.ones(2)),
    "block_diag_list": lambda lib: lib.block_diag(lib.ones(2), [1.0]),
    "cdist_list": lambda lib: lib.cdist([[1.0]], lib.ones(1, 1)),
    "linalg_det_list": lambda lib: lib.linalg.det([[1.0]]),
    "linalg_solve_none": lambda lib: lib.linalg.solve(lib.eye(2), None),
    "ones_like_list": lambda lib: lib.ones_like([1.0]),
    "full_like_none_input": lambda lib: lib.full_like(None, 1.0),
    "mul_none": lambda lib: lib.mul(lib.ones(2), None),
    "add_none_first": lambda lib: lib.add(None, lib.ones(2)),
    "tensor_times_none": lambda lib: lib.ones(2) * None,
    "eq_none": lambda lib: lib.eq(lib.ones(2), None),
    "lt_none": lambda lib: lib.lt(lib.ones(2), None),
    "tensor_lt_list": lambda lib: lib.ones(2) < [1.0, 2.0],
    "tensor_ge_none": lambda lib: lib.ones(2) >= None,
    "where_none_input": lambda lib: lib.where(lib.ones(2) > 0, None, lib.ones(2)),
    "where_none_other": lambda lib: lib.where(lib.ones(2) > 0, lib.ones(2), None),
    "where_number_none": lambda lib: lib.where(lib.ones(2) > 0, 1.0, None),
    "where_none_number": lambda lib: lib.where(lib.ones(2) > 0, None, 2),
    "cumsum_float_dim": lambda lib: lib.cumsum(lib.ones(2, 3), 1.0),
    "cumsum_method_float_dim": lambda lib: lib.ones(2, 3).cumsum(1.0),
    "cumsum_keyword_float_dim": lambda lib: lib.cumsum(lib.ones(2, 3), dim=1.0),
    "chunk_float": lambda lib: lib.chunk(lib.ones(2, 3), 2.0),
    "kthvalue_float_k": lambda lib: lib.ones(2, 3).kthvalue(1.0),
    "diff_float_n": lambda lib: lib.diff(lib.ones(2, 3), 1.0),
    "transpose_float_dim": lambda lib: lib.ones(2, 3).transpose(0.0, 1),
    "index_select_float_dim": lambda lib: lib.index_select(lib.ones(2, 3), 1.0,
                                                           lib.tensor([0])),
    "nn_elu_list": lambda lib: lib.nn.functional.elu([1.0]),
    "nn_pad_none": lambda lib: lib.nn.functional.pad(None, (1, 1)),
    "nn_logsigmoid_list": lambda lib: lib.nn.functional.logsigmoid([1.0]),
    "nn_max_pool1d_list": lambda lib: lib.nn.functional.max_pool1d([[[1.0, 2.0]]], 2),
    "nn_unfold_none": lambda lib: lib.nn.functional.unfold(None, 2),
    # methods count positions after the tensor; in-place methods are named as such
    "maximum_method_number": lambda lib: lib.ones(2).maximum(2),
    "atan2_method_ndarray": lambda lib: lib.ones(2).atan2(np.ones(2)),
    "index_add_method_list": lambda lib: lib.ones(2).index_add(0, [0], lib.ones(1)),
    "add_in_place_list": lambda lib: lib.ones(2).add_([1.0]),
    "mul_in_place_none": lambda lib: lib.ones(2).mul_(None),
    "sub_in_place_str": lambda lib: lib.ones(2).sub_("a"),
    "div_in_place_list": lambda lib: lib.ones(2).div_([1.0]),
    "add_in_place_alpha_none": lambda lib: lib.ones(2).add_(lib.ones(2), alpha=None),
    "atan2_in_place_ndarray": lambda lib: lib.ones(2).atan2_(np.ones(2)),
    "hypot_in_place_list": lambda lib: lib.ones(2).hypot_([1.0]),
    "index_add_in_place_list": lambda lib: lib.ones(2).index_add_(0, [0], lib.ones(1)),
    "index_copy_in_place_list": lambda lib: lib.ones(2).index_copy_(0, [0], lib.ones(1)),
    "masked_scatter_in_place_list": lambda lib: lib.ones(2).masked_scatter_([True, False],
                                                                           lib.ones(2)),
    # functions that warn (their warnings find the user's line, so they are wrapped too)
    "softmax_list": lambda lib: lib.softmax([1.0, 2.0], 0),
    "log_softmax_list": lambda lib: lib.log_softmax([1.0, 2.0], 0),
    "cov_list": lambda lib: lib.cov([[1.0, 2.0]]),
    "cross_list": lambda lib: lib.cross(lib.ones(3), [1.0, 2.0, 3.0]),
    "qr_list": lambda lib: lib.qr([[1.0]]),
    "cholesky_list": lambda lib: lib.cholesky([[1.0]]),
    "index_reduce_list": lambda lib: lib.index_reduce(lib.ones(2), 0, [0], lib.ones(1), "prod"),
    "nn_linear_list": lambda lib: lib.nn.functional.linear([1.0], lib.ones(1, 1)),
    "nn_linear_weight_none": lambda lib: lib.nn.functional.linear(lib.ones(1), None),
    "nn_cross_entropy_list": lambda lib: lib.nn.functional.cross_entropy([[1.0]],
                                                                         lib.tensor([0])),
    "nn_cross_entropy_target_list": lambda lib: lib.nn.functional.cross_entropy(lib.ones(1, 2),
                                                                                [0]),
    "nn_nll_loss_list": lambda lib: lib.nn.functional.nll_loss([[1.0]], lib.tensor([0])),
    "nn_kl_div_list": lambda lib: lib.nn.functional.kl_div([1.0], lib.ones(1), reduction="sum"),
    # None or a list where torch's overloads take a tensor or a number (no silent answer)
    "scatter_list_value": lambda lib: lib.scatter(lib.zeros(3), 0, lib.tensor([0]), [1.0]),
    "scatter_none_value": lambda lib: lib.scatter(lib.zeros(3), 0, lib.tensor([0]), None),
    "scatter_keyword_none_value": lambda lib: lib.scatter(lib.zeros(3), 0, lib.tensor([0]),
                                                          value=None),
    "xlogy_none": lambda lib: lib.xlogy(lib.ones(3), None),
    "xlogy_list": lambda lib: lib.xlogy(lib.ones(3), [1.0]),
    "xlogy_none_first": lambda lib: lib.xlogy(None, lib.ones(3)),
    "isin_none": lambda lib: lib.isin(lib.ones(3), None),
    "isin_list": lambda lib: lib.isin(lib.ones(3), [1.0]),
    "isin_none_first": lambda lib: lib.isin(None, lib.ones(3)),
    "isin_numbers": lambda lib: lib.isin(1, 2),
    "trapz_none": lambda lib: lib.trapz(lib.ones(3), None),
    "trapz_list": lambda lib: lib.trapz(lib.ones(3), [1.0, 2.0, 3.0]),
    "trapz_list_y": lambda lib: lib.trapz([1.0, 2.0]),
    "trapz_dx_none": lambda lib: lib.trapz(lib.ones(3), dx=None),
    "trapz_x_and_dx": lambda lib: lib.trapz(lib.ones(3), lib.ones(3), dx=2),
    "trapezoid_none": lambda lib: lib.trapezoid(lib.ones(3), None),
    "trapezoid_dx_tensor": lambda lib: lib.trapezoid(lib.ones(3), dx=lib.ones(3)),
    "cumulative_trapezoid_none": lambda lib: lib.cumulative_trapezoid(lib.ones(3), None),
    "linspace_none_start": lambda lib: lib.linspace(None, 1, 3),
    "linspace_none_end": lambda lib: lib.linspace(0, None, 3),
    "linspace_list_start": lambda lib: lib.linspace([0], 1, 3),
    "linspace_float_steps": lambda lib: lib.linspace(0, 1, 3.0),
    "linspace_none_steps": lambda lib: lib.linspace(0, 1, None),
    "logspace_none_start": lambda lib: lib.logspace(None, 1, 3),
    "pow_list_base": lambda lib: lib.pow([1.0], lib.ones(2)),
    "pow_list_exponent": lambda lib: lib.pow(lib.ones(2), [1.0]),
    "pow_none_exponent": lambda lib: lib.pow(lib.ones(2), None),
    "float_power_list_base": lambda lib: lib.float_power([1.0], lib.ones(2)),
    "float_power_none_exponent": lambda lib: lib.float_power(lib.ones(2), None),
    "rsub_list": lambda lib: lib.rsub(lib.ones(2), [1.0]),
    "rsub_none": lambda lib: lib.rsub(lib.ones(2), None),
    "tensor_split_float_indices": lambda lib: lib.tensor_split(lib.ones(2), [1.0]),
    "tensor_split_float_second_index": lambda lib: lib.tensor_split(lib.ones(4), [1, 2.0]),
    "nn_dropout_none_not_training": lambda lib: lib.nn.functional.dropout(None, training=False),
    "nn_alpha_dropout_list": lambda lib: lib.nn.functional.alpha_dropout([1.0], 0.5, False),
    "nn_feature_alpha_dropout_none": lambda lib: lib.nn.functional.feature_alpha_dropout(None),
    "atleast_1d_list_of_floats": lambda lib: lib.atleast_1d([1.0]),
    "atleast_2d_none_in_list": lambda lib: lib.atleast_2d([lib.ones(1), None]),
    "meshgrid_list_of_floats": lambda lib: lib.meshgrid([1.0], indexing="ij"),
    "where_none_both": lambda lib: lib.where(lib.ones(2) > 0, None, None),
    "where_list_input": lambda lib: lib.where(lib.ones(1) > 0, [1.0], lib.ones(1)),
    "where_list_other": lambda lib: lib.where(lib.ones(1) > 0, lib.ones(1), [1.0]),
    "where_without_other": lambda lib: lib.where(lib.ones(1) > 0, lib.ones(1)),
    "arange_none_end": lambda lib: lib.arange(0, None),
    "arange_none_start": lambda lib: lib.arange(None, 1),
    "arange_none_step": lambda lib: lib.arange(0, 3, None),
    "masked_fill_none": lambda lib: lib.masked_fill(lib.ones(1), lib.tensor([True]), None),
    "masked_fill_list": lambda lib: lib.masked_fill(lib.ones(1), lib.tensor([True]), [1.0]),
    "index_fill_none": lambda lib: lib.index_fill(lib.ones(1), 0, lib.tensor([0]), None),
    "fill_none": lambda lib: lib.fill(lib.ones(1), None),
    "fill_list": lambda lib: lib.fill(lib.ones(1), [1.0, 2.0]),
    "fill_in_place_none": lambda lib: lib.ones(1).fill_(None),
    "remainder_list_base": lambda lib: lib.remainder([1.0], lib.ones(2)),
    "remainder_list_other": lambda lib: lib.remainder(lib.ones(2), [1.0, 2.0]),
    "remainder_none_other": lambda lib: lib.remainder(lib.ones(2), None),
    # F's functions that are torch ops (torch's TypeError, not Python's AttributeError)
    "nn_avg_pool1d_list": lambda lib: lib.nn.functional.avg_pool1d([[[1.0, 2.0]]], 2),
    "nn_adaptive_avg_pool1d_none": lambda lib: lib.nn.functional.adaptive_avg_pool1d(None, 2),
    "nn_bilinear_weight_list": lambda lib: lib.nn.functional.bilinear(lib.ones(1, 2),
                                                                      lib.ones(1, 2), [1.0]),
    "nn_rrelu_list": lambda lib: lib.nn.functional.rrelu([1.0]),
    "nn_hardshrink_none": lambda lib: lib.nn.functional.hardshrink(None),
    "nn_one_hot_list": lambda lib: lib.nn.functional.one_hot([0, 1]),
    "nn_pairwise_distance_none": lambda lib: lib.nn.functional.pairwise_distance(lib.ones(2, 2),
                                                                                 None),
}


def _size_errors():
    """Sizes torch refuses, for each way of giving them: one by one, as one sequence, by name."""
    x = "lib.ones(2, 3)"
    calls = {"zeros": "lib.zeros", "ones": "lib.ones", "empty": "lib.empty",
             "rand": "lib.rand", "randn": "lib.randn", "new_zeros": f"{x}.new_zeros",
             "new_empty": f"{x}.new_empty", "view": f"{x}.view", "reshape": f"{x}.reshape",
             "expand": f"{x}.expand", "repeat": f"{x}.repeat", "permute": f"{x}.permute",
             "tile": f"{x}.tile"}
    given = ["2.0", "None", "'a'", "np.float64(2)", "np.bool_(True)", "lib.tensor(2.0)",
             "2, 2.5", "2.5, 2", "2, None", "(2, 2.5)", "(2.5, 2)", "[2, 2.5]", "((2,),)",
             "(True, 2)", "2, -1", "-1", "-2, 3"]
    cases = {f"{name}({args})": f"{call}({args})" for name, call in calls.items()
             for args in given}
    cases.update({
        "zeros()": "lib.zeros()", "rand()": "lib.rand()", "zeros(size=2.5)": "lib.zeros(size=2.5)",
        "zeros(size=(2.5, 2))": "lib.zeros(size=(2.5, 2))",
        "zeros(size=(2, 2.5))": "lib.zeros(size=(2, 2.5))",
        "zeros(2, size=(2,))": "lib.zeros(2, size=(2,))", "reshape()": f"{x}.reshape()",
        "full(2.0)": "lib.full((2.0,), 1.0)", "full(2)": "lib.full(2, 1.0)",
        "full(None)": "lib.full(None, 1.0)", "full(-1)": "lib.full((-1,), 1.0)",
        "full([2, None])": "lib.full([2, None], 1.0)",
        "new_full(2.5)": f"{x}.new_full((2.5,), 1)", "new_full(-1)": f"{x}.new_full(-1, 1)",
        "randint(2.5)": "lib.randint(3, (2.5,))", "randint(2)": "lib.randint(3, 2)",
        "randint((2, 2.5))": "lib.randint(3, (2, 2.5))",
        "randint(-1)": "lib.randint(3, (-1,))",
        "empty_strided(2.5)": "lib.empty_strided((2.5,), (1,))",
        "flip(0.0)": f"{x}.flip(0.0)", "flip((0.0,))": f"{x}.flip((0.0,))",
    })
    return cases


SIZE_ERRORS = _size_errors()


@pytest.mark.parametrize("name", SIZE_ERRORS)
def test_size_arguments_as_torch(name):
    """A refused size raises torch's class and text; an accepted one gives torch's shape."""
    code = SIZE_ERRORS[name]
    same(lambda lib: _outcome(lambda: tuple(eval(code, {"lib": lib, "np": np}).shape)))


def _outcome(fn):
    """fn's result, or the class and text of what it raised."""
    try:
        return fn()
    except Exception as error:  # noqa: BLE001 (the class and text are what is compared)
        return type(error).__name__, str(error)


@pytest.mark.parametrize("name", REFUSED)
def test_refusals_match_torch(name):
    same_error(REFUSED[name])


NUMPY_OPERANDS = {
    "tensor_times_ndarray": lambda lib: lib.ones(2) * np.ones(2),
    "tensor_plus_ndarray_2d": lambda lib: lib.ones(2) + np.ones((2, 2)),
    "tensor_matmul_ndarray": lambda lib: lib.ones(2) @ np.ones(2),
    "ufunc_of_tensor": lambda lib: np.exp(lib.ones(2)),
    "ufunc_to_bool": lambda lib: np.isnan(lib.ones(2)),
    "copy_from_number": lambda lib: lib.ones(2).copy_(3.0),
    "flatten_0d": lambda lib: lib.tensor(1.0).flatten(0, -1),
    "roll_0d_without_dims": lambda lib: lib.tensor(1.0).roll(1),
    "tensor_of_one_element_tensors": lambda lib: lib.tensor([lib.ones(1), lib.ones(1)]),
    "tensor_complex_into_bool": lambda lib: lib.tensor([1j, 0j], dtype=lib.bool),
}


@pytest.mark.filterwarnings("ignore:__array_wrap__ must accept context")
@pytest.mark.parametrize("name", NUMPY_OPERANDS)
def test_numpy_operands_and_accepted_calls_match_torch(name):
    same(lambda lib: (type(NUMPY_OPERANDS[name](lib)).__name__,
                      _result(NUMPY_OPERANDS[name](lib))))


def _assign(lib, dtype, key, value):
    x = lib.zeros(2, 3, dtype=getattr(lib, dtype))
    x[key] = value(lib) if callable(value) else value
    return _result(x)


ASSIGNMENTS = {  # (dtype, key, value): torch's result or error
    "list": ("float32", 0, [1.0, 2.0, 3.0]),
    "tuple": ("float32", 0, (1.0, 2.0, 3.0)),
    "ndarray": ("float32", 0, np.ones(3)),
    "none": ("float32", 0, None),
    "str": ("float32", 0, "a"),
    "list_by_mask": ("float32", (slice(None),), [1.0]),
    "list_of_tensors": ("float32", 0, lambda lib: [lib.tensor(1.0), 2.0, 3.0]),
    "np_float64": ("float32", 0, np.float64(2)),
    "np_complex": ("float32", 0, np.complex64(1j)),
    "complex_into_float": ("float32", 0, 1j),
    "complex_into_int": ("int64", 0, 1j),
    "complex_into_bool": ("bool", 0, 1j),
    "none_into_complex": ("complex64", 0, None),
    "overflow_uint8": ("uint8", 0, 300),
    "overflow_int32": ("int32", 0, 2**40),
    "np_overflow_int8": ("int8", 0, np.int64(300)),
    "nan_into_int64": ("int64", 0, float("nan")),
    "negative_into_uint8_wraps": ("uint8", 0, -1),
    "float_into_int_truncates": ("int64", 0, 2.7),
    "bool_into_int": ("int64", 0, True),
    "tensor_of_other_dtype": ("float32", 0, lambda lib: lib.ones(3, dtype=lib.float64)),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_assigned_values_as_torch(name):
    dtype, key, value = ASSIGNMENTS[name]
    same(lambda lib: _outcome(lambda: _assign(lib, dtype, key, value)))


def _answer(value):
    return _result(value) if hasattr(value, "dtype") else value


COMPARISONS = {
    "eq_list": lambda lib: lib.ones(2) == [1.0, 1.0],
    "ne_list": lambda lib: lib.ones(2) != [1.0, 1.0],
    "eq_tuple": lambda lib: lib.ones(2) == (1, 1),
    "eq_str": lambda lib: lib.ones(2) == "a",
    "eq_none": lambda lib: lib.ones(2) == None,  # noqa: E711 (the operator is the point)
    "ne_none": lambda lib: lib.ones(2) != None,  # noqa: E711
    "none_eq": lambda lib: None == lib.ones(2),  # noqa: E711
    "list_eq": lambda lib: [1.0, 1.0] == lib.ones(2),
    "eq_ndarray": lambda lib: lib.ones(2) == np.ones(2),
    "ne_ndarray": lambda lib: lib.ones(2) != np.ones(2),
    "eq_number": lambda lib: lib.ones(2) == 1,
}


@pytest.mark.parametrize("name", COMPARISONS)
def test_comparisons_with_other_objects_as_torch(name):
    same(lambda lib: _answer(COMPARISONS[name](lib)))


def test_data_takes_another_dtype_and_shape_as_torch():
    same(lambda lib: _set_data(lib, lib.ones(3, dtype=lib.float64)))


def _overflowing_casts(lib):
    """Numbers a float dtype cannot hold, cast by construction, .to/.half and assignment."""
    written = lib.zeros(3, dtype=lib.float16)
    written[0] = 7e4
    written[lib.tensor([1])] = 1e300
    written[2] = lib.tensor(7e4, dtype=lib.float64)
    return [t.tolist() for t in (
        lib.tensor([70000.0], dtype=lib.float16), lib.tensor(7e4, dtype=lib.float16),
        lib.tensor([[1e300, 1.0]]), lib.tensor([1e300], dtype=lib.bfloat16),
        lib.tensor([7e4]).to(lib.float16), lib.tensor([7e4]).half(),
        lib.tensor([1e300], dtype=lib.float64).float(), written)]


def test_overflowing_float_casts_give_inf_without_a_warning_as_torch():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's "overflow encountered in cast" leaked
        same(_overflowing_casts)


@pytest.mark.parametrize("dtype, value", [("float16", 7e4), ("float16", 65519.0),
                                          ("bfloat16", 1e300), ("float32", -1e300)])
def test_full_refuses_a_finite_number_beyond_the_float_dtype_as_torch(dtype, value):
    same_error(lambda lib: lib.full((2,), value, dtype=getattr(lib, dtype)))
    same_error(lambda lib: lib.zeros(1, dtype=getattr(lib, dtype)).new_full((2,), value))
    same(lambda lib: lib.full((2,), float("inf"), dtype=getattr(lib, dtype)).tolist())


FILLS = {
    "fill_": lambda lib, x, value: x.fill_(value),
    "masked_fill": lambda lib, x, value: x.masked_fill(x == x, value),
    "index_fill": lambda lib, x, value: x.index_fill(0, lib.tensor([0]), value),
}


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("dtype, value", [("float16", 7e4), ("float32", 1e300), ("int8", 300),
                                          ("complex64", 1e300), ("int32", float("nan"))])
def test_fills_refuse_a_number_the_dtype_cannot_hold_as_torch(fill, dtype, value):
    same_error(lambda lib: FILLS[fill](lib, lib.zeros(2, dtype=getattr(lib, dtype)), value))


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("dtype, value", [("uint8", -1), ("bool", 300), ("float16", 1e-9),
                                          ("int64", 2.7), ("float16", float("-inf"))])
def test_fills_cast_a_number_the_dtype_holds_as_torch(fill, dtype, value):
    same(lambda lib: FILLS[fill](lib, lib.zeros(2, dtype=getattr(lib, dtype)), value).tolist())


CLAMPS = {
    "clamp_max": lambda lib, x, bound: x.clamp(max=bound),
    "clamp_min": lambda lib, x, bound: lib.clamp_min(x, -bound),
    "clamp_": lambda lib, x, bound: x.clamp_(-bound, bound),
    "clip": lambda lib, x, bound: lib.clip(x, None, bound),
}


@pytest.mark.parametrize("clamp", CLAMPS)
@pytest.mark.parametrize("dtype, bound", [("float16", 7e4), ("int8", 300)])
def test_clamp_refuses_a_number_bound_the_dtype_cannot_hold_as_torch(clamp, dtype, bound):
    same_error(lambda lib: CLAMPS[clamp](lib, lib.ones(2, dtype=getattr(lib, dtype)), bound))


@pytest.mark.parametrize("clamp", ["clamp_max", "clamp_min", "clip"])
@pytest.mark.parametrize("dtype, bound", [("float16", float("inf")), ("int8", 300.5),
                                          ("uint8", -1), ("float16", 0.1)])
def test_clamp_takes_a_number_bound_in_the_dtype_as_torch(clamp, dtype, bound):
    same(lambda lib: CLAMPS[clamp](lib, lib.ones(2, dtype=getattr(lib, dtype)), bound).tolist())


@pytest.mark.parametrize("space", ["linspace", "logspace"])
@pytest.mark.parametrize("start, end, dtype", [(0, 7e4, "float16"), (7e4, 0, "float16"),
                                               (0, 1e300, "float32"), (0, 300, "int8")])
def test_spaces_refuse_endpoints_the_dtype_cannot_hold_as_torch(space, start, end, dtype):
    same_error(lambda lib: getattr(lib, space)(start, end, 3, dtype=getattr(lib, dtype)))


def test_logspace_of_an_integer_dtype_truncates_its_ends_as_torch():
    same(lambda lib: [lib.logspace(-1, 2.5, 3, dtype=lib.int64).tolist(),
                      lib.logspace(-1.7, 2.9, 4, base=2, dtype=lib.int32).tolist()])


def test_spaces_overflowing_or_infinite_are_silent_as_torch():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's overflow and invalid-value warnings leaked
        same(lambda lib: str([lib.logspace(0, 10, 3, dtype=lib.float16).tolist(),
                              lib.linspace(0, float("inf"), 3, dtype=lib.float16).tolist(),
                              lib.logspace(0, float("inf"), 3).tolist()]))


def test_format_without_spec_prints_the_tensor():
    same(lambda lib: (format(lib.ones(2), ""), format(lib.tensor(2.5), ".2f"), f"{lib.ones(2)}"))


# Calls that warn, through helpers and wrappers at various depths in tapegrad: each warning
# names the caller's file and line, as torch's do. (Not run on torch: several of these warn
# once per process there, and other tests compare those texts with torch's.)
WARNING_CALLS = {
    "var": lambda lib: lib.var(lib.ones(1)),
    "var_method": lambda lib: lib.ones(1).var(),
    "std_mean": lambda lib: lib.std_mean(lib.ones(1)),
    "softmax_without_dim": lambda lib: lib.nn.functional.softmax(lib.ones(2)),
    "log_softmax_without_dim": lambda lib: lib.nn.functional.log_softmax(lib.ones(2)),
    "softmax_module_without_dim": lambda lib: lib.nn.Softmax()(lib.ones(2)),
    "cov_without_freedom": lambda lib: lib.cov(lib.ones(1)),
    "qr": lambda lib: lib.qr(lib.eye(2)),
    "cholesky": lambda lib: lib.cholesky(lib.eye(2)),
    "index_reduce": lambda lib: lib.index_reduce(lib.ones(2), 0, lib.tensor([0]), lib.ones(1),
                                                 "prod"),
    "meshgrid_without_indexing": lambda lib: lib.meshgrid(lib.ones(2), lib.ones(2)),
    "kl_div_mean": lambda lib: lib.nn.functional.kl_div(lib.ones(2), lib.ones(2)),
    "legacy_size_average": lambda lib: lib.nn.functional.mse_loss(lib.ones(2), lib.ones(2),
                                                                  size_average=True),
    "loss_module_legacy": lambda lib: lib.nn.MSELoss(reduce=False),
    "non_leaf_grad": lambda lib: (lib.ones(1, requires_grad=True) * 2).grad,
    "scheduler_step_epoch": lambda lib: lib.optim.lr_scheduler.StepLR(
        lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1), 1).step(1),
}


def _warnings_of(call, lib):
    """(category, text, file, line) of each warning call(lib) issues."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(lib)
    return [(w.category.__name__, str(w.message), w.filename, w.lineno) for w in caught]


@pytest.mark.parametrize("name", WARNING_CALLS)
def test_warnings_point_at_the_callers_line(name):
    import tapegrad
    call = WARNING_CALLS[name]
    lines = [line for *_, line in call.__code__.co_lines() if line is not None]
    caught = _warnings_of(call, tapegrad)
    assert caught
    for category, text, filename, line in caught:
        assert (filename, min(lines) <= line <= max(lines)) == (__file__, True), caught


def test_a_warning_from_python_c_code_is_issued_not_an_import_error():
    """Code run by `python -c` lives in __main__, whose loader linecache must not be sent to."""
    import subprocess
    import sys
    code = "import tapegrad; tapegrad.nn.Softmax()(tapegrad.ones(2, 2))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert "<string>:1: UserWarning: Implicit dimension choice for softmax" in run.stderr
