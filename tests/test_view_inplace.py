"""Views and in-place ops, as torch: after a write into the base or any view, every view's node
is regenerated (AsStridedBackward0 of the base's history), so gradients through views stay right;
torch's errors where it refuses. Each scenario runs on tapegrad and on torch."""
import pytest

from compare import same, same_error


def name(node):
    return node and type(node).__name__


def leaf(lib, n=3):
    return lib.arange(1.0, n + 1, dtype=lib.float64).requires_grad_()


def observed(lib, x, view, *others):
    """What torch reports of a view after the writes, and the gradient reaching the leaf."""
    seen = {"node": name(view.grad_fn), "version": view._version,
            "requires_grad": view.requires_grad,
            "others": [(name(t.grad_fn), t._version) for t in others]}
    (view * lib.arange(1.0, view.numel() + 1, dtype=view.dtype).view(view.shape)).sum().backward()
    seen["grad"] = x.grad.tolist()
    return seen


def test_write_into_the_base_after_a_slice_was_taken():
    def scenario(lib):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = x.clone()
        v = y[1:]
        y.mul_(3)
        return observed(lib, x, v, y)
    same(scenario)


@pytest.mark.parametrize("make_view", [
    lambda y: y.T, lambda y: y.mT, lambda y: y.view(6), lambda y: y[:, 1], lambda y: y.diagonal(),
    lambda y: y.unfold(1, 2, 1), lambda y: y.as_strided((2, 2), (1, 2), 1),
    lambda y: y[0].expand(4, 3), lambda y: y.transpose(0, 1)[1:].diagonal()[:1],
], ids=["T", "mT", "view", "select", "diagonal", "unfold", "as_strided", "expand", "chain"])
def test_write_into_the_base_regenerates_each_kind_of_view(make_view):
    def scenario(lib):
        x = leaf(lib, 6)
        y = x.view(2, 3) * 2
        v = make_view(y)
        y.mul_(2)
        return observed(lib, x, v, y)
    same(scenario)


def test_write_into_a_sibling_view():
    def scenario(lib):
        x = leaf(lib, 4)
        y = x * 1
        a, b = y[:3], y[2:]
        a.mul_(5)
        return observed(lib, x, b, a, y)
    same(scenario)


def test_write_into_a_view_of_a_view_regenerates_the_chain():
    def scenario(lib):
        x = leaf(lib, 5)
        y = x * 2
        v = y[1:]
        w = v[1:]
        u = w.view(3, 1)
        v.mul_(2)
        return observed(lib, x, u, w, v, y)
    same(scenario)


@pytest.mark.parametrize("make_base", [lambda lib, x: x.clone(),
                                       lambda lib, x: lib.zeros(3, dtype=lib.float64)],
                         ids=["in_the_graph", "needing_no_grad"])
def test_setitem_after_a_slice_was_taken(make_base):
    def scenario(lib):
        x = leaf(lib)
        y = make_base(lib, x)
        v = y[1:]
        y[2] = x[0] * 3
        return observed(lib, x, v, y)
    same(scenario)


def test_setitem_through_a_view():
    def scenario(lib):
        x = leaf(lib, 6)
        y = x.view(2, 3) * 2
        row, column = y[1], y[:, 2]
        row[1:] = x[:2] ** 2
        return observed(lib, x, column, row, y)
    same(scenario)


def test_inplace_relu_on_a_base_whose_slice_was_taken():
    def scenario(lib):
        x = lib.tensor([-1.0, 2.0, -3.0, 4.0], dtype=lib.float64, requires_grad=True)
        h = x * 2
        v = h[1:]
        lib.nn.functional.relu(h, inplace=True)
        return observed(lib, x, v, h)
    same(scenario)


def test_write_without_grad_on_a_leaf_regenerates_its_views():
    def scenario(lib):
        x = leaf(lib)
        v = x[1:]
        with lib.no_grad():
            x.mul_(2)
        return observed(lib, x, v)
    same(scenario)


def test_view_used_as_an_op_input_after_the_write():
    def scenario(lib):
        x = leaf(lib)
        y = x.clone()
        v = y[:2]
        y.add_(x)
        z = v * v  # its node is made before v.grad_fn is ever read
        z.sum().backward()
        return name(z.grad_fn.next_functions[0][0]), x.grad.tolist()
    same(scenario)


# ---- torch's refusals ----------------------------------------------------------------------

def test_view_of_a_leaf_written_in_place():
    same_error(lambda lib: leaf(lib)[1:].mul_(2))


def test_leaf_that_is_itself_a_view_written_in_place():
    same_error(lambda lib: lib.arange(12.0).reshape(3, 4).requires_grad_().mul_(2))


def test_leaf_written_in_place():
    same_error(lambda lib: leaf(lib).mul_(2))


def no_grad_view(lib):
    y = leaf(lib).clone()
    with lib.no_grad():
        return y, y[1:]


def test_view_made_in_no_grad_written_in_place():
    same_error(lambda lib: no_grad_view(lib)[1].mul_(2))


def test_view_made_in_no_grad_after_its_base_was_written():
    def scenario(lib):
        y, v = no_grad_view(lib)
        y.mul_(2)
        return v.grad_fn
    same_error(scenario)


def test_view_made_in_no_grad_used_after_its_base_was_written():
    def scenario(lib):
        y, v = no_grad_view(lib)
        y.mul_(2)
        return v.sum()
    same_error(scenario)


def test_view_of_a_view_made_in_no_grad_written_in_place():
    def scenario(lib):
        y, v = no_grad_view(lib)
        return v[1:].mul_(2)
    same_error(scenario)


def test_view_made_in_no_grad_written_with_a_value_that_requires_grad():
    def scenario(lib):
        with lib.no_grad():
            v = lib.zeros(3, dtype=lib.float64)[1:]
        return v.mul_(leaf(lib, 2))
    same_error(scenario)


def test_view_made_in_inference_mode_written_in_place():
    def scenario(lib):
        y = leaf(lib).clone()
        with lib.inference_mode():
            v = y[1:]
        return v.mul_(2)
    same_error(scenario)


@pytest.mark.parametrize("outputs", [lambda y: y.unbind(), lambda y: y.split(2),
                                     lambda y: y.chunk(2)], ids=["unbind", "split", "chunk"])
def test_multi_output_view_written_in_place(outputs):
    same_error(lambda lib: outputs(leaf(lib, 4).clone())[1].mul_(2))


@pytest.mark.parametrize("outputs", [lambda y: y.unbind(), lambda y: y.split(2)],
                         ids=["unbind", "split"])
def test_multi_output_view_after_its_base_was_written(outputs):
    def scenario(lib):
        y = leaf(lib, 4).clone()
        views = outputs(y)
        y.add_(1)
        return views[1].grad_fn
    same_error(scenario)


def test_view_of_a_multi_output_view_written_in_place():
    same_error(lambda lib: leaf(lib, 4).clone().split(2)[0][:1].mul_(2))


def test_multi_output_view_of_a_plain_tensor_written_with_grad():
    same_error(lambda lib: lib.zeros(4, dtype=lib.float64).split(2)[0].mul_(leaf(lib, 2)))


def test_multi_output_views_made_in_no_grad_may_be_written_in_no_grad():
    def scenario(lib):
        with lib.no_grad():
            y = leaf(lib, 4).clone()
            a, b = y.split(2)
            a.mul_(2)
        return y.tolist(), a._version, b._version
    same(scenario)


# ---- forward mode --------------------------------------------------------------------------

@pytest.mark.parametrize("start_dual", [True, False], ids=["dual_base", "plain_base"])
def test_forward_ad_write_through_a_view_reaches_the_base_tangent(start_dual):
    def scenario(lib):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            primal = lib.arange(1.0, 4, dtype=lib.float64)
            dual = fwAD.make_dual(primal, lib.ones(3, dtype=lib.float64))
            y = dual * 1 if start_dual else primal.clone()
            value = fwAD.make_dual(lib.tensor([5.0], dtype=lib.float64),
                                   lib.tensor([7.0], dtype=lib.float64))
            y[:1].mul_(3)
            y[1:2].mul_(value)
            tangent = fwAD.unpack_dual(y).tangent
            return y.tolist(), None if tangent is None else tangent.tolist()
    same(scenario)


def test_printing_a_view_whose_node_may_not_be_regenerated():
    def scenario(lib):
        y, v = no_grad_view(lib)
        y.mul_(2)
        return repr(v)
    same(scenario)


def test_view_of_a_base_that_requires_grad_later():
    def scenario(lib):
        base = lib.zeros(3, dtype=lib.float64)
        view = base[1:]
        base.requires_grad_()
        result = view * 2
        return (repr(view), view.is_leaf, result.requires_grad,
                [name(node) for node, _ in result.grad_fn.next_functions])
    same(scenario)


# ---- a base that changes shape in place keeps its views (storage geometry, as torch) -------

@pytest.mark.parametrize("reshape_base", [
    lambda y: y.t_(), lambda y: y.transpose_(0, 1), lambda y: y.unsqueeze_(1),
    lambda y: y.as_strided_((3, 2), (1, 3)), lambda y: y.squeeze_(),
], ids=["t_", "transpose_", "unsqueeze_", "as_strided_", "squeeze_"])
def test_base_changing_shape_in_place_keeps_its_views(reshape_base):
    def scenario(lib):
        x = leaf(lib, 6)
        y = x.view(2, 3) * 1
        row, column, diagonal = y[1], y[:, 2], y.diagonal()
        reshape_base(y)
        y.mul_(2)
        seen = observed(lib, x, row, column, diagonal, y)
        return seen, row.tolist(), column.tolist(), diagonal.tolist(), y.tolist()
    same(scenario)


def test_write_through_an_old_view_after_the_base_was_transposed():
    def scenario(lib):
        x = leaf(lib, 6)
        y = x.view(2, 3) * 1
        row = y[1]
        y.t_()
        row.mul_(x[:3])
        return observed(lib, x, y, row), y.tolist()
    same(scenario)


def test_view_of_an_old_view_after_the_base_was_transposed():
    def scenario(lib):
        x = leaf(lib, 6)
        y = x.view(2, 3) * 1
        row = y[1]
        y.t_()
        part = row[1:]
        part.add_(x[:2] ** 2)
        return observed(lib, x, y, row, part), y.tolist()
    same(scenario)


# ---- writes into memory that elements share ------------------------------------------------

def expanded(lib):
    return lib.arange(1.0, 7, dtype=lib.float64)[:1].expand(3)


@pytest.mark.parametrize("write", [
    lambda lib, v: v.mul_(2), lambda lib, v: v.copy_(lib.ones(3, dtype=lib.float64)),
    lambda lib, v: v.clamp_(0, 1), lambda lib, v: lib.nn.functional.relu(v, inplace=True),
    lambda lib, v: v.__setitem__(slice(None), 5.0), lambda lib, v: v.sin_(),
], ids=["mul_", "copy_", "clamp_", "relu_", "setitem_slice", "sin_"])
def test_write_into_an_expanded_tensor_is_refused(write):
    same_error(lambda lib: write(lib, expanded(lib)))


@pytest.mark.parametrize("write", [
    lambda lib, v: v.fill_(7), lambda lib, v: v.zero_(), lambda lib, v: v.__setitem__(0, 5.0),
    lambda lib, v: v.index_put_((lib.tensor([1]),), lib.tensor(5.0, dtype=lib.float64)),
    lambda lib, v: v.masked_fill_(lib.tensor([False, True, False]), 5.0),
], ids=["fill_", "zero_", "setitem_element", "index_put_", "masked_fill_"])
def test_fills_of_an_expanded_tensor_are_allowed(write):
    def scenario(lib):
        base = lib.arange(1.0, 7, dtype=lib.float64)
        write(lib, base[:1].expand(3))
        return base.tolist()
    same(scenario)


@pytest.mark.parametrize("write", [
    lambda x: x[1:].add_(x[:-1]), lambda x: x[1:4].copy_(x[:3]), lambda x: x[1:4].mul_(x[2]),
    lambda x: x[:4].view(2, 2).add_(x[:4].view(2, 2).T),
    lambda x: x[1:4].clamp_(min=x[:3]), lambda x: x[1:4].addcmul_(x[:3], x[3:]),
    lambda x: x.__setitem__(slice(1, 4), x[:3]),
    lambda x: x.__setitem__(x.new_tensor([1, 2, 3]).long(), x[:3]),
], ids=["add_", "copy_", "mul_0d", "add_T", "clamp_", "addcmul_", "setitem", "setitem_index"])
def test_input_partly_overlapping_the_written_tensor_is_refused(write):
    same_error(lambda lib: write(lib.arange(6.0, dtype=lib.float64)))


@pytest.mark.parametrize("write", [
    lambda x: x.add_(x), lambda x: x[1:4].add_(x[5:]), lambda x: x[1:4].mul_(x[0]),
    lambda x: x.__setitem__(slice(1, 4), x[1:2]), lambda x: x.__setitem__(slice(1, 4), x[0]),
    lambda x: x[1:4].masked_fill_(x[:3] > 1, x[0]),
], ids=["itself", "disjoint", "0d_outside", "broadcast_value", "0d_value", "masked_fill_"])
def test_inputs_sharing_memory_torch_allows(write):
    def scenario(lib):
        x = lib.arange(6.0, dtype=lib.float64)
        write(x)
        return x.tolist()
    same(scenario)


@pytest.mark.parametrize("write", [
    lambda lib, v: v.mul_(2), lambda lib, v: v.add_(1),
    lambda lib, v: v.mul_(lib.full((3,), 2.0, dtype=lib.float64, requires_grad=True)),
    lambda lib, v: v.copy_(lib.arange(12.0, dtype=lib.float64).view(4, 3)),
    lambda lib, v: v.zero_(), lambda lib, v: v.clamp_(2, 4), lambda lib, v: v.__setitem__(0, 5.0),
    lambda lib, v: v[1:3].mul_(3), lambda lib, v: v.T.mul_(2),
    lambda lib, v: lib.nn.functional.relu(v.sub_(3), inplace=True),
], ids=["mul_", "add_", "mul_tensor", "copy_", "zero_", "clamp_", "setitem", "slice_mul_", "T",
        "relu_"])
def test_write_into_overlapping_windows_as_torch(write):
    """torch writes an unfold with step < size element by element (each reading what the
    earlier writes left); its gradient treats the write as done once per element."""
    def scenario(lib):
        x = leaf(lib, 6)
        y = x * 1
        windows = y.unfold(0, 3, 1)
        write(lib, windows)
        (y * lib.arange(1.0, 7, dtype=lib.float64)).sum().backward()
        return y.tolist(), x.grad.tolist(), name(y.grad_fn), windows._version
    same(scenario)


def test_write_into_overlapping_as_strided_as_torch():
    def scenario(lib):
        x = lib.arange(6.0, dtype=lib.float64)
        x.as_strided((2, 2), (1, 1)).copy_(lib.tensor([[1.0, 2], [3, 4]], dtype=lib.float64))
        x.as_strided((3, 2), (1, 1), 2).add_(1)
        return x.tolist()
    same(scenario)


# ---- found by tests/test_fuzz_views.py -----------------------------------------------------

def test_slice_over_a_whole_dim_in_a_tuple_key_is_an_alias():
    def scenario(lib):
        y = lib.ones(1, 3, dtype=lib.float64, requires_grad=True).clone()
        return [name(v.grad_fn) for v in (y[0:1], y[(slice(0, 1),)], y[:, 0:3], y[:, -5:],
                                          y[:, 0:2], y[..., 0:3:1], y[0:1, ::2])]
    same(scenario)


@pytest.mark.parametrize("first", [lambda y: y.relu_(), lambda y: y.exp_(),
                                   lambda y: y.sigmoid_(), lambda y: y[1:].tanh_()],
                         ids=["relu_", "exp_", "sigmoid_", "view_tanh_"])
def test_write_after_an_in_place_op_that_saved_its_result(first):
    def scenario(lib):
        y = leaf(lib).clone()
        first(y)
        y.add_(2)
        return y.sum().backward()
    same_error(scenario)


def test_autograd_checks_come_before_the_memory_checks():
    same_error(lambda lib: leaf(lib, 4).as_strided((2, 2), (0, 1)).copy_(lib.ones(2, 2)))
    same_error(lambda lib: leaf(lib, 4).clone().expand(2, 4).unbind()[1].mul_(2))
    same_error(lambda lib: leaf(lib, 4).clone()[:1].expand(3).split(1)[0].mul_(2))


@pytest.mark.parametrize("key", [Ellipsis, slice(None), slice(0, 9), (slice(None), Ellipsis)],
                         ids=["ellipsis", "slice", "long_slice", "tuple"])
def test_setitem_with_a_key_taking_no_view_writes_the_tensor_itself(key):
    same_error(lambda lib: leaf(lib, 4).clone().view(2, 2).unbind()[1].__setitem__(key, 2.0))

    def scenario(lib):
        y = leaf(lib, 4).clone()
        y[key] = 2.0
        return name(y.grad_fn), y._version
    same(scenario)


def test_fill_of_an_expanded_view_fails_its_backward():
    def scenario(lib):
        y = leaf(lib).clone()
        y[:1].expand(3).zero_()
        return y.sum().backward()
    same_error(scenario)


def test_write_into_an_empty_expanded_view():
    def scenario(lib):
        x = leaf(lib)
        y = x.clone()
        lib.relu_(y[:0].expand(2, 0))
        y.sum().backward()
        return x.grad.tolist()
    same(scenario)


def test_fill_with_a_tensor_of_an_expanded_tensor_is_refused():
    same_error(lambda lib: expanded(lib).fill_(lib.tensor(2.0, dtype=lib.float64)))


def test_views_of_a_leaf_that_is_itself_a_view_after_a_write():
    """torch regenerates them as AsStridedBackward0 of the base, which needs no grad: the
    gradient no longer reaches the leaf through them."""
    def scenario(lib):
        x = lib.arange(1.0, 7, dtype=lib.float64).view(2, 3).requires_grad_()
        row = x[1]
        with lib.no_grad():
            x.mul_(2)
        node = row.grad_fn
        (row * 1).sum().backward()
        return name(node), node.next_functions, row.requires_grad, row.is_leaf, x.grad
    same(scenario)


@pytest.mark.parametrize("make_view", [lambda y: y.squeeze(1), lambda y: y.squeeze((0, 1)),
                                       lambda y: y.squeeze()], ids=["dim", "dims", "all"])
def test_error_names_the_view_node_as_torch(make_view):
    same_error(lambda lib: make_view(leaf(lib).clone().view(3, 1).split(1)[0]).mul_(2))


def test_reshape_of_a_non_contiguous_tensor_a_view_can_express():
    def scenario(lib):
        y = lib.ones(3, 4, dtype=lib.float64, requires_grad=True).clone()
        e = y[:1, :1].expand(2, 1)
        return [name(v.grad_fn) for v in (y.reshape(12), y.t().reshape(2, 2, 3),
                                          y[:, 1:].reshape(3, 1, 3), y[::2].reshape(8),
                                          e.reshape(2), y[:, :1].reshape(3))]
    same(scenario)


@pytest.mark.parametrize("make_view", [
    lambda y: y.as_strided((3, 2), (1, 2)), lambda y: y.as_strided((2, 3), (1, 1), 2),
    lambda y: y.as_strided((3, 3), (2, 1)), lambda y: y.view(3, 3).unfold(0, 2, 1).unfold(1, 2, 1),
], ids=["inner_stride_first", "unfold_like", "rows_overlap", "unfold_of_unfold"])
@pytest.mark.parametrize("write", [
    lambda lib, v: v.copy_(lib.arange(v.numel(), dtype=lib.float64).view(v.shape)),
    lambda lib, v: v.mul_(lib.arange(v.numel(), dtype=lib.float64).view(v.shape) - 2),
    lambda lib, v: v.clamp_(-2, 3),
], ids=["copy_", "mul_", "clamp_"])
def test_writes_into_overlapping_views_follow_torch_s_element_order(make_view, write):
    """TensorIterator visits the smallest stride innermost: which write lands last."""
    def scenario(lib):
        x = lib.tensor([(-1.0) ** k * (k % 5 + 1) for k in range(9)], dtype=lib.float64,
                       requires_grad=True)
        y = x * 1
        write(lib, make_view(y))
        (y * lib.arange(1.0, 10, dtype=lib.float64)).sum().backward()
        return y.tolist(), x.grad.tolist()
    same(scenario)


def test_resize_of_a_base_with_views():
    def scenario(lib):
        x = lib.arange(6.0, dtype=lib.float64)
        view = x[2:]
        versions = []
        for shape in [(6,), (2, 3), (3,)]:
            x.resize_(shape)
            versions.append(x._version)
        x.mul_(2)
        return view.tolist(), x.tolist(), versions, view._version
    same(scenario)
