"""The order torch's CPU kernels leave equal values in, for the rows where it matters.

torch's topk, sort (not stable), mode and kthvalue run GCC's std::nth_element, std::sort and
std::partial_sort (introselect, introsort, heap select) or torch's own quickselect on each
slice; none is stable, so among equal values the index they return is the one those exact
sequences of comparisons and swaps leave in place. The functions here replay the same
sequences on a Python list of positions, comparing `key[i] < key[j]` (the keys rank the values
the way torch's comparator orders them), so that they give the same indices. They are slow
(pure Python), and the ops call them only for the slices whose answer depends on ties.
"""

_SORT_THRESHOLD = 16  # std::sort leaves runs this short to its final insertion sort


def _insertion_sort(a, key, first, last):
    for i in range(first + 1, last):
        value = a[i]
        if key[value] < key[a[first]]:
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, key, i)


def _linear_insert(a, key, i):
    """Move a[i] down past the larger elements before it (something smaller stops it; the
    check on i only matters for keys that are no order, where C++ would read out of bounds)."""
    value, k = a[i], key[a[i]]
    while i > 0 and k < key[a[i - 1]]:
        a[i] = a[i - 1]
        i -= 1
    a[i] = value


def _median_to_first(a, key, result, x, y, z):
    kx, ky, kz = key[a[x]], key[a[y]], key[a[z]]
    if kx < ky:
        pick = y if ky < kz else z if kx < kz else x
    else:
        pick = x if kx < kz else z if ky < kz else y
    a[result], a[pick] = a[pick], a[result]


def _partition(a, key, first, last):
    """Median of three moved to `first`, then Hoare's partition around it; returns the cut."""
    _median_to_first(a, key, first, first + 1, first + (last - first) // 2, last - 1)
    pivot, low = key[a[first]], first + 1
    while True:
        while key[a[low]] < pivot:
            low += 1
        last -= 1
        while pivot < key[a[last]]:
            last -= 1
        if low >= last:
            return low
        a[low], a[last] = a[last], a[low]
        low += 1


def _sift(a, key, first, hole, length, value):
    """Heap adjustment: the hole goes down to a leaf along the larger children, then the
    value goes up from there."""
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if key[a[first + child]] < key[a[first + child - 1]]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and key[a[first + parent]] < key[value]:
        a[first + hole] = a[first + parent]
        hole, parent = parent, (parent - 1) // 2
    a[first + hole] = value


def _heap_select(a, key, first, middle, last):
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length >= 2 else ():
        _sift(a, key, first, parent, length, a[first + parent])
    for i in range(middle, last):
        if key[a[i]] < key[a[first]]:
            value, a[i] = a[i], a[first]
            _sift(a, key, first, 0, length, value)


def _sort_heap(a, key, first, last):
    while last - first > 1:
        last -= 1
        value, a[last] = a[last], a[first]
        _sift(a, key, first, 0, last - first, value)


def partial_sort(a, key, first, middle, last):
    _heap_select(a, key, first, middle, last)
    _sort_heap(a, key, first, middle)


def _introsort(a, key, first, last, depth):
    while last - first > _SORT_THRESHOLD:
        if depth == 0:
            partial_sort(a, key, first, last, last)
            return
        depth -= 1
        cut = _partition(a, key, first, last)
        _introsort(a, key, cut, last, depth)
        last = cut


def sort(a, key, first, last):
    if last - first < 2:
        return
    _introsort(a, key, first, last, 2 * ((last - first).bit_length() - 1))
    _insertion_sort(a, key, first, min(last, first + _SORT_THRESHOLD))
    for i in range(first + _SORT_THRESHOLD, last):
        _linear_insert(a, key, i)


def nth_element(a, key, first, nth, last):
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, key, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition(a, key, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, key, first, last)


def quick_select(a, key, k):
    """torch's own quickselect (kthvalue): median of three, then a partition that leaves the
    pivot between the two sides."""
    low, high = 0, len(a) - 1

    def swap(i, j):
        a[i], a[j] = a[j], a[i]
    while high > low:
        if high == low + 1:
            if key[a[high]] < key[a[low]]:
                swap(low, high)
            return
        swap(low + (high - low) // 2, low + 1)
        for i, j in ((low + 1, high), (low, high), (low + 1, low)):
            if key[a[j]] < key[a[i]]:
                swap(i, j)
        i, j, pivot = low + 1, high, key[a[low]]
        while True:
            i += 1
            while key[a[i]] < pivot:
                i += 1
            j -= 1
            while pivot < key[a[j]]:
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1


def topk(key, k, sorted_):
    """The positions torch's topk returns for one slice, keys ranked so that the wanted values
    come first (smallest key first)."""
    a = list(range(len(key)))
    if k == 0:
        return a[:0]
    if k * 64 <= len(a):
        partial_sort(a, key, 0, k, len(a))
    else:
        nth_element(a, key, 0, k - 1, len(a))
        if sorted_:
            sort(a, key, 0, k - 1)
    return a[:k]
