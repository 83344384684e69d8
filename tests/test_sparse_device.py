"""Sparse COO tensors on a device (the test double of tests/device_double.py): the same
entries, coalescing, sums and densified values as on the cpu, and the device kept."""
import pytest

import device_double
import tapegrad

INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]  # (0, 2) twice: uncoalesced
VALUES = [3.0, 4.0, 5.0, -1.5, 0.25]


@pytest.fixture
def gpu():
    yield device_double.install(count=1)
    device_double.uninstall()


def _picture(sparse):
    return (sparse._nnz(), sparse.is_coalesced(), sparse._indices().cpu().tolist(),
            sparse._values().cpu().tolist(), sparse.to_dense().cpu().tolist())


def _on(device):
    return tapegrad.sparse_coo_tensor(INDICES, VALUES, (3, 4), device=device)


OPERATIONS = {
    "as made": lambda sparse: sparse,
    "coalesced": lambda sparse: sparse.coalesce(),
    "doubled": lambda sparse: sparse + sparse,
    "coalesced sum": lambda sparse: sparse.coalesce() + sparse.coalesce(),
    "negated": lambda sparse: -sparse,
    "dense round trip": lambda sparse: sparse.to_dense().to_sparse(),
}


@pytest.mark.parametrize("name", OPERATIONS)
def test_sparse_ops_on_the_device_give_the_cpus_entries(gpu, name):
    operation = OPERATIONS[name]
    on_device = operation(_on("cuda"))
    assert on_device.device == tapegrad.device("cuda", 0)
    assert on_device._values().device == on_device.to_dense().device == on_device.device
    assert _picture(on_device) == _picture(operation(_on("cpu")))


def test_embedding_sparse_grad_stays_on_the_device(gpu):
    weight = tapegrad.arange(12.0, device="cuda").view(4, 3).requires_grad_()
    indices = tapegrad.tensor([[0, 2, 0], [3, 3, 1]], device="cuda")
    tapegrad.nn.functional.embedding(indices, weight, sparse=True).sum().backward()
    assert weight.grad.is_sparse and weight.grad.device == weight.device
    assert weight.grad.to_dense().cpu().tolist() == [[2.0] * 3, [1.0] * 3, [1.0] * 3,
                                                     [2.0] * 3]
