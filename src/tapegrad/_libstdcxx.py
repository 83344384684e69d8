"""The order GNU libstdc++'s std::nth_element, std::sort and std::partial_sort leave elements
in, for torch's CPU topk (TopKImpl.h), whose comparator sees only values: where values tie,
its indices come out in the order these algorithms happen to move them, which only running
the same steps gives. Written from the algorithms' published behaviour (introselect,
introsort with a final insertion sort, heap select), on Python lists."""


def topk_indices(values, k):
    """torch.topk(values, k).indices for a 1-d list (largest first, sorted)."""
    items = [(value, index) for index, value in enumerate(values)]
    if k * 64 <= len(items):
        _partial_sort(items, 0, k, len(items))
    else:
        _nth_element(items, 0, k - 1, len(items))
        _sort(items, 0, k - 1)
    return [index for _, index in items[:k]]


def _before(x, y):
    return x[0] > y[0]


def _nth_element(items, first, nth, last):
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(items, first, nth + 1, last)
            items[first], items[nth] = items[nth], items[first]
            return
        depth -= 1
        cut = _partition_pivot(items, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(items, first, last)


def _sort(items, first, last):
    if last - first < 2:
        return
    _introsort_loop(items, first, last, 2 * ((last - first).bit_length() - 1))
    if last - first > 16:
        _insertion_sort(items, first, first + 16)
        for i in range(first + 16, last):
            _linear_insert(items, i)
    else:
        _insertion_sort(items, first, last)


def _introsort_loop(items, first, last, depth):
    while last - first > 16:
        if depth == 0:
            _partial_sort(items, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(items, first, last)
        _introsort_loop(items, cut, last, depth)
        last = cut


def _partition_pivot(items, first, last):
    _median_to_first(items, first, first + 1, first + (last - first) // 2, last - 1)
    pivot, low, high = items[first], first + 1, last
    while True:
        while _before(items[low], pivot):
            low += 1
        high -= 1
        while _before(pivot, items[high]):
            high -= 1
        if not low < high:
            return low
        items[low], items[high] = items[high], items[low]
        low += 1


def _median_to_first(items, result, a, b, c):
    if _before(items[a], items[b]):
        if _before(items[b], items[c]):
            median = b
        elif _before(items[a], items[c]):
            median = c
        else:
            median = a
    elif _before(items[a], items[c]):
        median = a
    elif _before(items[b], items[c]):
        median = c
    else:
        median = b
    items[result], items[median] = items[median], items[result]


def _insertion_sort(items, first, last):
    for i in range(first + 1, last):
        if _before(items[i], items[first]):
            value = items[i]
            items[first + 1:i + 1] = items[first:i]
            items[first] = value
        else:
            _linear_insert(items, i)


def _linear_insert(items, last):
    value = items[last]
    while _before(value, items[last - 1]):
        items[last] = items[last - 1]
        last -= 1
    items[last] = value


def _partial_sort(items, first, middle, last):
    _heap_select(items, first, middle, last)
    while middle - first > 1:  # sort_heap
        middle -= 1
        _pop_heap(items, first, middle, middle)


def _heap_select(items, first, middle, last):
    length = middle - first
    if length >= 2:  # make_heap
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(items, first, parent, length, items[first + parent])
    for i in range(middle, last):
        if _before(items[i], items[first]):
            _pop_heap(items, first, middle, i)


def _pop_heap(items, first, last, result):
    value = items[result]
    items[result] = items[first]
    _adjust_heap(items, first, 0, last - first, value)


def _adjust_heap(items, first, hole, length, value):
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(items[first + child], items[first + child - 1]):
            child -= 1
        items[first + hole] = items[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        items[first + hole] = items[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _before(items[first + parent], value):  # push_heap
        items[first + hole] = items[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    items[first + hole] = value
