"""index_add/copy/fill/reduce, scatter_reduce, scatter(reduce=), index_put, put,
masked_scatter, take_along_dim and nonzero against torch: errors (type and text), in-place
variants, node names, and what their backward refuses."""
import pytest

import tapegrad
from compare import same, same_error

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _x(lib):
    return lib.arange(12.0).reshape(3, 4)


def _i(lib, *values, dtype="int64"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


ERRORS = {
    # index_add / index_reduce share torch's checks
    "index_add-float-index": lambda lib: _x(lib).index_add(0, _i(lib, 0, 2).float(),
                                                           lib.ones(2, 4)),
    "index_add-2d-index": lambda lib: _x(lib).index_add(0, _i(lib, 0, 2).view(2, 1),
                                                        lib.ones(2, 4)),
    "index_add-dtype": lambda lib: _x(lib).index_add(0, _i(lib, 0, 2),
                                                     lib.ones(2, 4, dtype=lib.float64)),
    "index_add-count": lambda lib: _x(lib).index_add(0, _i(lib, 0, 2), lib.ones(3, 4)),
    "index_add-shape": lambda lib: _x(lib).index_add(0, _i(lib, 0, 2), lib.ones(2, 3)),
    "index_add-0d-source": lambda lib: _x(lib).index_add(0, _i(lib, 1), lib.tensor(1.0)),
    "index_add-dim": lambda lib: _x(lib).index_add(2, _i(lib, 0), lib.ones(1, 4)),
    "index_add-out-of-range-dim0": lambda lib: _x(lib).index_add(0, _i(lib, 0, 3),
                                                                 lib.ones(2, 4)),
    "index_add-negative-dim0": lambda lib: _x(lib).index_add(0, _i(lib, -1), lib.ones(1, 4)),
    "index_add-out-of-range-dim1": lambda lib: _x(lib).index_add(1, _i(lib, 4),
                                                                 lib.ones(3, 1)),
    "index_add-source-number": lambda lib: _x(lib).index_add(0, _i(lib, 0), 1.0),
    "index_reduce-reduce": lambda lib: _x(lib).index_reduce(0, _i(lib, 0), lib.ones(1, 4),
                                                            "sum"),
    "index_reduce-float-index": lambda lib: _x(lib).index_reduce(
        0, _i(lib, 0).float(), lib.ones(1, 4), "prod"),
    "index_reduce-out-of-range": lambda lib: _x(lib).index_reduce(0, _i(lib, 3),
                                                                  lib.ones(1, 4), "amax"),
    "index_reduce-negative": lambda lib: _x(lib).index_reduce(1, _i(lib, -1),
                                                              lib.ones(3, 1), "amin"),
    "index_reduce-dtype": lambda lib: _x(lib).index_reduce(0, _i(lib, 0),
                                                           lib.ones(1, 4).double(), "mean"),
    "index_reduce-bool": lambda lib: lib.tensor([True, False]).index_reduce(
        0, _i(lib, 1), lib.tensor([True]), "amax"),
    # index_copy
    "index_copy-2d-index": lambda lib: _x(lib).index_copy(0, _i(lib, 0, 2).view(2, 1),
                                                          lib.ones(2, 4)),
    "index_copy-int32": lambda lib: _x(lib).index_copy(0, _i(lib, 0, 2, dtype="int32"),
                                                       lib.ones(2, 4)),
    "index_copy-dims": lambda lib: _x(lib).index_copy(0, _i(lib, 0, 2), lib.ones(8)),
    "index_copy-scalar-source": lambda lib: _x(lib).index_copy(0, _i(lib, 0, 2),
                                                               lib.tensor(1.0)),
    "index_copy-dtype": lambda lib: _x(lib).index_copy(0, _i(lib, 0), lib.ones(1, 4).double()),
    "index_copy-slices": lambda lib: lib.zeros(3, 4, 5).index_copy(1, _i(lib, 0, 2),
                                                                   lib.ones(3, 2, 6)),
    "index_copy-count": lambda lib: _x(lib).index_copy(0, _i(lib, 0, 2), lib.ones(3, 4)),
    "index_copy-out-of-range": lambda lib: _x(lib).index_copy(1, _i(lib, 4), lib.ones(3, 1)),
    "index_copy-negative": lambda lib: _x(lib).index_copy(0, _i(lib, -1), lib.ones(1, 4)),
    # index_fill
    "index_fill-int32": lambda lib: _x(lib).index_fill(0, _i(lib, 0, dtype="int32"), 1.0),
    "index_fill-2d-index": lambda lib: _x(lib).index_fill(0, _i(lib, 0).view(1, 1), 1.0),
    "index_fill-1d-value": lambda lib: _x(lib).index_fill(0, _i(lib, 0), lib.ones(1)),
    "index_fill-out-of-range": lambda lib: _x(lib).index_fill(1, _i(lib, -5), 1.0),
    "index_fill-dim": lambda lib: _x(lib).index_fill(2, _i(lib, 0), 1.0),
    # scatter_reduce and scatter(reduce=)
    "scatter_reduce-reduce": lambda lib: _x(lib).scatter_reduce(
        0, _i(lib, 0).view(1, 1), lib.ones(1, 1), "add"),
    "scatter_reduce-float-index": lambda lib: _x(lib).scatter_reduce(
        0, _i(lib, 0).view(1, 1).float(), lib.ones(1, 1), "sum"),
    "scatter_reduce-dtype": lambda lib: _x(lib).scatter_reduce(
        0, _i(lib, 0).view(1, 1), lib.ones(1, 1).double(), "sum"),
    "scatter_reduce-out-of-range": lambda lib: _x(lib).scatter_reduce(
        0, _i(lib, 3).view(1, 1), lib.ones(1, 1), "amax"),
    "scatter_reduce-sizes": lambda lib: _x(lib).scatter_reduce(
        0, lib.zeros(2, 5, dtype=lib.int64), lib.ones(2, 4), "sum"),
    "scatter_reduce-number": lambda lib: _x(lib).scatter_reduce(0, _i(lib, 0).view(1, 1), 2.0,
                                                                "sum"),
    "scatter_reduce-bool-mean": lambda lib: lib.tensor([True, False]).scatter_reduce(
        0, _i(lib, 1), lib.tensor([True]), "mean"),
    "scatter-reduce-name": lambda lib: _x(lib).scatter(0, _i(lib, 0).view(1, 1), 2.0,
                                                       reduce="sum"),
    "scatter-reduce-name-src": lambda lib: _x(lib).scatter(0, _i(lib, 0).view(1, 1),
                                                           lib.ones(1, 1), reduce="mean"),
    "scatter-reduce-float-index": lambda lib: _x(lib).scatter(
        0, _i(lib, 0).view(1, 1).float(), 2.0, reduce="add"),
    # gather
    "gather-uint8-index": lambda lib: _x(lib).gather(0, _i(lib, 1, dtype="uint8").view(1, 1)),
    "gather-float-index": lambda lib: _x(lib).gather(0, _i(lib, 1).view(1, 1).float()),
    # masked_scatter
    "masked_scatter-uint8-mask": lambda lib: _x(lib).masked_scatter(
        lib.ones(3, 4, dtype=lib.uint8), lib.ones(12)),
    "masked_scatter-dtype": lambda lib: _x(lib).masked_scatter(
        lib.ones(3, 4, dtype=lib.bool), lib.ones(12).double()),
    "masked_scatter-too-few": lambda lib: _x(lib).masked_scatter(
        lib.ones(3, 4, dtype=lib.bool), lib.ones(11)),
    "masked_scatter-broadcast": lambda lib: _x(lib).masked_scatter(
        lib.ones(2, 4, dtype=lib.bool), lib.ones(12)),
    "masked_scatter_-mask-more-dims": lambda lib: lib.zeros(4).masked_scatter_(
        lib.ones(3, 4, dtype=lib.bool), lib.ones(12)),
    "masked_scatter_-mask-mismatch": lambda lib: _x(lib).masked_scatter_(
        lib.ones(2, 4, dtype=lib.bool), lib.ones(12)),
    "masked_scatter-number": lambda lib: _x(lib).masked_scatter(
        lib.ones(3, 4, dtype=lib.bool), 1.0),
    # put
    "put-int32": lambda lib: _x(lib).put(_i(lib, 0, dtype="int32"), lib.ones(1)),
    "put-dtype": lambda lib: _x(lib).put(_i(lib, 0), lib.ones(1).double()),
    "put-count": lambda lib: _x(lib).put(_i(lib, 0, 1), lib.ones(3)),
    "put-empty": lambda lib: lib.ones(0).put(_i(lib, 0), lib.ones(1)),
    "put-out-of-range": lambda lib: _x(lib).put(_i(lib, 12), lib.ones(1)),
    "put-negative": lambda lib: _x(lib).put(_i(lib, -13), lib.ones(1)),
    # take_along_dim
    "take_along_dim-dims": lambda lib: lib.take_along_dim(_x(lib), _i(lib, 0), 0),
    "take_along_dim-int32": lambda lib: lib.take_along_dim(
        _x(lib), _i(lib, 0, dtype="int32").view(1, 1), 0),
    "take_along_dim-broadcast": lambda lib: lib.take_along_dim(
        _x(lib), lib.zeros(2, 3, dtype=lib.int64), 0),
    "take_along_dim-flat-out-of-range": lambda lib: lib.take_along_dim(_x(lib), _i(lib, 12)),
    "take_along_dim-flat-float": lambda lib: lib.take_along_dim(_x(lib), _i(lib, 1).float()),
    "take_along_dim-flat-not-contiguous": lambda lib: lib.take_along_dim(_x(lib).t(),
                                                                         _i(lib, 1)),
    # index_put
    "index_put-float-index": lambda lib: _x(lib).index_put((_i(lib, 0).float(),),
                                                           lib.tensor(1.0)),
    "index_put-out-of-range": lambda lib: _x(lib).index_put((_i(lib, 3),), lib.tensor(1.0)),
    "index_put-shape": lambda lib: _x(lib).index_put((_i(lib, 0, 2),), lib.ones(3)),
    "index_put-dtype": lambda lib: _x(lib).index_put((_i(lib, 0),), lib.ones(4).double()),
    "index_put-too-many": lambda lib: _x(lib).index_put((_i(lib, 0),) * 3, lib.ones(1)),
    "index_put-none": lambda lib: _x(lib).index_put((None, _i(lib, 0)), lib.ones(1)),
    "index_put-fn-none": lambda lib: lib.index_put(_x(lib), (None,), lib.ones(1)),
    "index_put-fn-tensor": lambda lib: lib.index_put(_x(lib), _i(lib, 0), lib.ones(1)),
    "index_put-number": lambda lib: _x(lib).index_put((_i(lib, 0),), 1.0),
    "index_put-mask-shape": lambda lib: _x(lib).index_put(
        (lib.tensor([True, False]),), lib.tensor(1.0)),
    "nonzero_static-negative": lambda lib: _x(lib).nonzero_static(size=-1),
    "nonzero_static-float-size": lambda lib: _x(lib).nonzero_static(size=2.0),
    "take_along_dim-0d": lambda lib: lib.take_along_dim(lib.tensor(3.0), lib.tensor(0), 0),
    "take_along_dim-empty-dim": lambda lib: lib.take_along_dim(
        lib.zeros(0, 3), lib.zeros(2, 3, dtype=lib.int64), 0),
    "getitem-int16-index": lambda lib: _x(lib)[_i(lib, 0, 1, dtype="int16")],
}


# x[key] = value: (key, value) per case, each written without and with autograd recording
SETITEM_ERRORS = {
    "uint8-mask-number": (lambda lib: _i(lib, 1, 0, 1, dtype="uint8"), lambda lib: 1.0),
    "mask-values": (lambda lib: lib.zeros(3, 4) > -1, lambda lib: lib.ones(3)),
    "rows-values": (lambda lib: _i(lib, 0, 1), lambda lib: lib.ones(3, 4)),
    "slice-and-index": (lambda lib: (slice(None), _i(lib, 0, 1)), lambda lib: lib.ones(3)),
    "basic-key": (lambda lib: 0, lambda lib: lib.ones(1, 1, 3)),
    "basic-slice": (lambda lib: (0, slice(1, 3)), lambda lib: lib.ones(3)),
    "int16-index": (lambda lib: _i(lib, 0, dtype="int16"), lambda lib: 1.0),
}


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", SETITEM_ERRORS)
def test_setitem_error_matches_torch(name, requires_grad):
    key, value = SETITEM_ERRORS[name]

    def scenario(lib):
        x = lib.zeros(3, 4, requires_grad=True) * 1 if requires_grad else lib.zeros(3, 4)
        x[key(lib)] = value(lib)
    same_error(scenario)


def _leaf(lib, shape=(3, 4)):
    rows, columns = shape
    return lib.tensor([[float(columns * i + j) for j in range(columns)] for i in range(rows)],
                      requires_grad=True)


def _result_and_node(result):
    return result.tolist(), type(result.grad_fn).__name__


CALLS = {
    "index_add": lambda lib, x: x.index_add(1, _i(lib, 3, 0, 3), lib.ones(3, 3), alpha=2),
    "index_add-int-alpha": lambda lib, x: lib.arange(4).index_add(
        0, _i(lib, 0, 2), lib.ones(2, dtype=lib.int64), alpha=1.5),
    "index_copy": lambda lib, x: x.index_copy(0, _i(lib, 2, 0), -x[:2]),
    "index_fill": lambda lib, x: x.index_fill(1, _i(lib, -1, 1), 7.5),
    "index_fill-tensor": lambda lib, x: x.index_fill(0, _i(lib, 1), lib.tensor(2.0)),
    "index_fill-int": lambda lib, x: lib.arange(3).index_fill(0, _i(lib, 0, 2), 1.7),
    "index_reduce-prod": lambda lib, x: x.index_reduce(0, _i(lib, 1, 1), x[:2] - 3, "prod"),
    "index_reduce-mean-int": lambda lib, x: lib.arange(5).index_reduce(
        0, _i(lib, 1, 1, 2), lib.tensor([-2, -3, -7]), "mean", include_self=False),
    "scatter_reduce-mean-int": lambda lib, x: lib.arange(5).scatter_reduce(
        0, _i(lib, 1, 1, 2), lib.tensor([-2, -3, -7]), "mean"),
    "scatter_reduce-amax-int": lambda lib, x: lib.tensor([1, 5]).scatter_reduce(
        0, _i(lib, 1), lib.tensor([3]), "amax", include_self=False),
    "scatter_reduce-bool-amax": lambda lib, x: lib.tensor([True, False, True]).scatter_reduce(
        0, _i(lib, 1, 1, 0), lib.tensor([True, False, False]), "amax", include_self=False),
    "index_reduce-uint8-amin": lambda lib, x: lib.tensor([3, 1, 2], dtype=lib.uint8).index_reduce(
        0, _i(lib, 1, 1), lib.tensor([5, 250], dtype=lib.uint8), "amin", include_self=False),
    "scatter_reduce-amin": lambda lib, x: x.scatter_reduce(
        1, _i(lib, 0, 0, 3).expand(3, 3), -x[:, :3], "amin", include_self=False),
    "scatter-add": lambda lib, x: x.scatter(0, _i(lib, 1, 1).view(2, 1), x[:2, :1], reduce="add"),
    "scatter-multiply-value": lambda lib, x: x.scatter(0, _i(lib, 1, 1).view(2, 1), 3.0,
                                                       reduce="multiply"),
    "scatter-add-int-value": lambda lib, x: lib.arange(4).scatter(0, _i(lib, 1), 2.5,
                                                                  reduce="add"),
    "put-accumulate": lambda lib, x: x.put(_i(lib, 0, 0, -1), lib.ones(3), accumulate=True),
    "masked_scatter": lambda lib, x: x.masked_scatter(x > 5, -x),
    "take_along_dim": lambda lib, x: lib.take_along_dim(x, _i(lib, -1, 5).view(2, 1), 0),
    "take_along_dim-flat": lambda lib, x: x.take_along_dim(_i(lib, 11, 0)),
    "index_put-fn": lambda lib, x: lib.index_put(x, (_i(lib, 0, 0), _i(lib, 1, 1)),
                                                 lib.tensor(2.0), accumulate=True),
    "index_put-mask": lambda lib, x: x.index_put([x > 4], lib.tensor(-1.0)),
    "uint8-mask": lambda lib, x: x[lib.tensor([1, 0, 1], dtype=lib.uint8)],
    "int8-0d-index": lambda lib, x: x[lib.tensor(1, dtype=lib.int8)],
}


@pytest.mark.parametrize("name", CALLS)
def test_result_and_node_match_torch(name):
    same(lambda lib: _result_and_node(CALLS[name](lib, _leaf(lib))))


def test_nonzero_family_matches_torch():
    def run(lib):
        x = lib.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
        return ([t.tolist() for t in x.nonzero(as_tuple=True)], x.nonzero().tolist(),
                lib.argwhere(x).tolist(), x.nonzero_static(size=5, fill_value=9).tolist(),
                lib.nonzero_static(x, size=1).tolist(), lib.tensor(0.0).nonzero().shape,
                [t.tolist() for t in lib.nonzero(lib.tensor(3.0), as_tuple=True)],
                lib.count_nonzero(x, dim=1).tolist(), x.nonzero().dtype == lib.int64)
    same(run)


# In-place variants: the tensor itself, written through its views, with torch's node names.
IN_PLACE = {
    "index_add_": lambda lib, x: x.index_add_(0, _i(lib, 2, 2), lib.ones(2, 4)),
    "index_copy_": lambda lib, x: x.index_copy_(1, _i(lib, 0), lib.zeros(3, 1)),
    "index_fill_": lambda lib, x: x.index_fill_(1, _i(lib, 0, 3), -1.0),
    "index_put_": lambda lib, x: x.index_put_((_i(lib, 1),), lib.tensor(5.0), accumulate=True),
    "torch.index_put_": lambda lib, x: lib.index_put_(x, (x > 6,), lib.tensor(5.0)),
    "index_reduce_": lambda lib, x: x.index_reduce_(0, _i(lib, 0), lib.ones(1, 4) * 2, "prod"),
    "scatter_reduce_": lambda lib, x: x.scatter_reduce_(
        0, _i(lib, 0, 0).view(1, 2), lib.ones(1, 2) * 9, "amax"),
    "masked_scatter_": lambda lib, x: x.masked_scatter_(x < 3, lib.zeros(5)),
    "put_": lambda lib, x: x.put_(_i(lib, 5), lib.tensor([-3.0])),
    "setitem-mask": lambda lib, x: x.__setitem__(x > 8, 0.5),
    "setitem-mask-tensor": lambda lib, x: x.__setitem__(x > 8, lib.tensor(0.5)),
}


@pytest.mark.parametrize("name", IN_PLACE)
def test_in_place_matches_torch(name):
    def run(lib):
        base = lib.arange(12.0).requires_grad_()
        x = base.view(3, 4) * 1
        returned = IN_PLACE[name](lib, x)
        x.backward(lib.ones(3, 4) * lib.arange(12.0).view(3, 4))
        return (x.tolist(), type(x.grad_fn).__name__, returned is x or returned is None,
                base.grad.tolist())
    same(run)


def test_scatter_in_place_with_reduce_matches_torch():
    def run(lib):
        x = _leaf(lib) * 1
        returned = x.scatter_(1, _i(lib, 0, 0).view(1, 2), 2.0, reduce="multiply")
        return x.tolist(), type(x.grad_fn).__name__, returned is x
    same(run)


@pytest.mark.parametrize("name", ["index_add_", "put_", "masked_scatter_"])
def test_in_place_on_a_leaf_that_requires_grad_is_refused(name):
    same_error(lambda lib: IN_PLACE[name](lib, _leaf(lib)))


def test_gradients_match_torch():
    def run(lib):
        x, src = _leaf(lib), _leaf(lib, (2, 4))
        index = _i(lib, 0, 2, 0, 1, 2, 2, 0, 1).view(2, 4)
        total = (x.scatter_reduce(0, index, src - 3, "prod").sum()
                 + x.index_reduce(1, _i(lib, 1, 1), x[:, :2] * 2, "mean",
                                  include_self=False).sum()
                 + (x.index_add(0, _i(lib, 1), src[:1], alpha=-2) ** 2).sum())
        total.backward()
        return x.grad.tolist(), src.grad.tolist()
    same(run)


def test_scatter_with_reduce_has_no_derivative():
    def run(lib):
        x = _leaf(lib)
        y = x.scatter(0, _i(lib, 0).view(1, 1), 2.0, reduce="add")
        y.sum().backward()
    same_error(run)


def test_scatter_with_reduce_and_src_warns_like_torch():
    # torch warns once per process, so its text is written out here
    with pytest.warns(UserWarning) as caught:
        _x(tapegrad).scatter(0, _i(tapegrad, 0).view(1, 1), tapegrad.ones(1, 1), reduce="add")
    assert [str(w.message) for w in caught] == [
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
        "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
        "options."]


@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_scatter_reduce_backward_refuses_src_larger_than_index(reduce):
    def run(lib):
        src = lib.ones(3, 4, requires_grad=True)
        lib.zeros(3, 4).scatter_reduce(0, _i(lib, 0, 1).view(1, 2), src, reduce).sum().backward()
    same_error(run)


@pytest.mark.parametrize("op", ["index_reduce", "scatter_reduce"])
def test_prod_double_backward_with_two_zeros_in_one_place_is_refused(op):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        source = lib.tensor([0.0, 0.0, 3.0], requires_grad=True)
        result = getattr(x, op)(0, _i(lib, 0, 0, 1), source, "prod")
        (grad,) = lib.autograd.grad(result.sum(), source, create_graph=True)
        grad.sum().backward()
    same_error(run)


def test_index_fill_value_gradient_with_a_negative_index_fails_as_in_torch():
    def run(lib):
        value = lib.tensor(2.0, requires_grad=True)
        _leaf(lib).index_fill(0, _i(lib, 2, -1), value).sum().backward()
    same_error(run)
