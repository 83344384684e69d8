"""Op-database rows not yet device-generic: the first failure of each on the test
double (`python tests/test_device_double.py --write-xfails` writes it)."""
XFAILS = {
    'linalg_lstsq_gelsd': "torch's CUDA accepts only lstsq's 'gels' driver (and gives no rank or singular values); these samples use the cpu's other drivers",
    'linalg_lstsq_gelss': "torch's CUDA accepts only lstsq's 'gels' driver (and gives no rank or singular values); these samples use the cpu's other drivers",
    'linalg_lstsq_rank': "torch's CUDA accepts only lstsq's 'gels' driver (and gives no rank or singular values); these samples use the cpu's other drivers",
    'linalg_lstsq_residuals': "torch's CUDA accepts only lstsq's 'gels' driver (and gives no rank or singular values); these samples use the cpu's other drivers",
    'linalg_lstsq_singular_values': "torch's CUDA accepts only lstsq's 'gels' driver (and gives no rank or singular values); these samples use the cpu's other drivers",
    'namespace_predicates': "get_device() and typename() name the device, so a cuda tensor's differ from a cpu tensor's",
}
