#include "io/type_runs.hpp"

#include <algorithm>
#include <climits>

#include "io/mpi_errors.hpp"

namespace exa::io {

namespace {

using format::ByteRun;

// The contents of a derived type; the derived types among them are new
// handles, freed here.
struct Contents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> addrs;
  std::vector<MPI_Datatype> types;
  Contents() = default;
  Contents(const Contents&) = delete;
  Contents& operator=(const Contents&) = delete;
  ~Contents() {
    for (MPI_Datatype& t : types) {
      int a = 0, b = 0, c = 0, comb = 0;
      if (MPI_Type_get_envelope(t, &a, &b, &c, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
        EXA_MPI(MPI_Type_free(&t)).set_aside("a handle MPI_Type_get_contents made: nothing to report to");
    }
  }
};

Status contents_of(MPI_Datatype t, Contents* c) {
  int nints = 0, naddrs = 0, ntypes = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &c->combiner)));
  if (c->combiner == MPI_COMBINER_NAMED) return Status::ok();
  c->ints.resize(size_t(nints));
  c->addrs.resize(size_t(naddrs));
  std::vector<MPI_Datatype> types(size_t(ntypes), MPI_DATATYPE_NULL);
  EXA_RETURN_IF_ERROR(EXA_MPI(
      MPI_Type_get_contents(t, nints, naddrs, ntypes, c->ints.data(), c->addrs.data(), types.data())));
  c->types = std::move(types);
  return Status::ok();
}

// Appends `child` shifted by `shift`, merging a run that continues the last.
Status append_shifted(const std::vector<ByteRun>& child, int64_t shift, std::vector<ByteRun>* out) {
  for (const ByteRun& r : child) {
    int64_t at = 0;
    if (__builtin_add_overflow(r.offset, shift, &at))
      return {NC_EINTOVERFLOW, "a datatype's displacement overflows"};
    if (!out->empty() && out->back().offset + out->back().length == at) {
      out->back().length += r.length;
      continue;
    }
    if (out->size() >= kMaxTypeRuns)
      return {NC_ENOMEM, "the file type has more separate pieces than vard over record sections handles"};
    out->push_back({at, r.length});
  }
  return Status::ok();
}

// shift = a * b + c, overflow-checked.
Status place(int64_t a, int64_t b, int64_t c, int64_t* shift) {
  int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, shift))
    return {NC_EINTOVERFLOW, "a datatype's displacement overflows"};
  return Status::ok();
}

Status runs_of(MPI_Datatype t, std::vector<ByteRun>* out);

// `blocklen` copies of the child, `extent` apart, from `shift`.
Status append_block(const std::vector<ByteRun>& child, int64_t extent, int64_t blocklen, int64_t shift,
                    std::vector<ByteRun>* out) {
  for (int64_t j = 0; j < blocklen; ++j) {
    int64_t s = 0;
    EXA_RETURN_IF_ERROR(place(j, extent, shift, &s));
    EXA_RETURN_IF_ERROR(append_shifted(child, s, out));
  }
  return Status::ok();
}

Status child_runs(MPI_Datatype child, std::vector<ByteRun>* runs, int64_t* extent) {
  MPI_Aint lb = 0, ext = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_get_extent(child, &lb, &ext)));
  *extent = int64_t(ext);
  return runs_of(child, runs);
}

// The elements of an array (sizes, from the slowest-varying dimension)
// whose index along each dimension k is one of picked[k], in storage order.
Status box_runs(MPI_Datatype element, const std::vector<int64_t>& sizes,
                const std::vector<std::vector<int64_t>>& picked, std::vector<ByteRun>* out) {
  const size_t n = sizes.size();
  for (const auto& p : picked)
    if (p.empty()) return Status::ok();
  std::vector<ByteRun> child;
  int64_t extent = 0;
  EXA_RETURN_IF_ERROR(child_runs(element, &child, &extent));
  std::vector<int64_t> step(n, 1);  // elements between consecutive indices of dimension k
  for (size_t k = n - 1; k-- > 0;) EXA_RETURN_IF_ERROR(place(step[k + 1], sizes[k + 1], 0, &step[k]));
  std::vector<size_t> idx(n, 0);
  for (;;) {
    int64_t row = 0;  // element of the row's index 0 along the fastest dimension
    for (size_t k = 0; k + 1 < n; ++k) EXA_RETURN_IF_ERROR(place(picked[k][idx[k]], step[k], row, &row));
    for (int64_t i : picked[n - 1]) {
      int64_t shift = 0;
      EXA_RETURN_IF_ERROR(place(row + i, extent, 0, &shift));
      EXA_RETURN_IF_ERROR(append_shifted(child, shift, out));
    }
    size_t k = n - 1;  // odometer over every dimension but the fastest
    while (k-- > 0) {
      if (++idx[k] < picked[k].size()) break;
      idx[k] = 0;
    }
    if (k == size_t(-1)) return Status::ok();
  }
}

std::vector<int64_t> index_range(int64_t from, int64_t count) {
  std::vector<int64_t> v(size_t(std::max<int64_t>(count, 0)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = from + int64_t(i);
  return v;
}

// A subarray: the elements of the sub-box in the array's storage order.
Status subarray_runs(const Contents& c, std::vector<ByteRun>* out) {
  const int n = c.ints[0];
  const bool fortran = c.ints[size_t(1 + 3 * n)] == MPI_ORDER_FORTRAN;
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> picked;
  for (int j = 0; j < n; ++j) {
    const int k = fortran ? n - 1 - j : j;  // slowest-varying first
    sizes.push_back(c.ints[size_t(1 + k)]);
    picked.push_back(index_range(c.ints[size_t(1 + 2 * n + k)], c.ints[size_t(1 + n + k)]));
  }
  return box_runs(c.types[0], sizes, picked, out);
}

// A distributed array (MPI_Type_create_darray): the indices each dimension's
// distribution gives the process `rank` of a row-major grid of psizes, the
// elements in the array's storage order.
Status darray_runs(const Contents& c, std::vector<ByteRun>* out) {
  const int rank = c.ints[1], n = c.ints[2];
  const int* gsizes = &c.ints[3];
  const int* distribs = &c.ints[size_t(3 + n)];
  const int* dargs = &c.ints[size_t(3 + 2 * n)];
  const int* psizes = &c.ints[size_t(3 + 3 * n)];
  const bool fortran = c.ints[size_t(3 + 4 * n)] == MPI_ORDER_FORTRAN;
  std::vector<int64_t> coords(static_cast<size_t>(n));
  for (int k = n - 1, r = rank; k >= 0; --k) {  // the process grid is row-major in any order
    coords[size_t(k)] = psizes[k] > 0 ? r % psizes[k] : 0;
    r = psizes[k] > 0 ? r / psizes[k] : 0;
  }
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> picked;
  for (int j = 0; j < n; ++j) {
    const int k = fortran ? n - 1 - j : j;
    const int64_t g = gsizes[k], p = std::max(psizes[k], 1), me = coords[size_t(k)];
    std::vector<int64_t> mine;
    if (distribs[k] == MPI_DISTRIBUTE_NONE) {
      mine = index_range(0, g);
    } else if (distribs[k] == MPI_DISTRIBUTE_BLOCK) {
      const int64_t b = dargs[k] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[k];
      mine = index_range(me * b, std::min(g, me * b + b) - me * b);
    } else {  // cyclic(k)
      const int64_t b = dargs[k] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[k];
      for (int64_t start = me * b; start < g; start += b * p)
        for (int64_t i = start; i < std::min(g, start + b); ++i) mine.push_back(i);
    }
    sizes.push_back(g);
    picked.push_back(std::move(mine));
  }
  return box_runs(c.types[0], sizes, picked, out);
}

Status runs_of(MPI_Datatype t, std::vector<ByteRun>* out) {
  Contents c;
  EXA_RETURN_IF_ERROR(contents_of(t, &c));
  if (c.combiner == MPI_COMBINER_NAMED) {
    int size = 0;
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_size(t, &size)));
    if (size > 0) return append_shifted({{0, size}}, 0, out);
    return Status::ok();
  }
  if (c.combiner == MPI_COMBINER_DUP || c.combiner == MPI_COMBINER_RESIZED) {
    // A resized type moves nothing: only its bounds change.
    std::vector<ByteRun> child;
    EXA_RETURN_IF_ERROR(runs_of(c.types[0], &child));
    return append_shifted(child, 0, out);
  }
  if (c.combiner == MPI_COMBINER_SUBARRAY) return subarray_runs(c, out);
  if (c.combiner == MPI_COMBINER_DARRAY) return darray_runs(c, out);
  if (c.combiner == MPI_COMBINER_STRUCT) {
    const int count = c.ints[0];
    for (int i = 0; i < count; ++i) {
      std::vector<ByteRun> child;
      int64_t extent = 0;
      EXA_RETURN_IF_ERROR(child_runs(c.types[size_t(i)], &child, &extent));
      EXA_RETURN_IF_ERROR(append_block(child, extent, c.ints[size_t(1 + i)], int64_t(c.addrs[size_t(i)]), out));
    }
    return Status::ok();
  }
  std::vector<ByteRun> child;
  int64_t extent = 0;
  switch (c.combiner) {
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
      EXA_RETURN_IF_ERROR(child_runs(c.types[0], &child, &extent));
      break;
    default:
      return {NC_ENOTSUPPORT,
              "vard over record sections: the file type's constructor is not handled"};
  }
  const int count = c.ints[0];
  for (int i = 0; i < count; ++i) {
    int64_t shift = 0, blocklen = 0;
    switch (c.combiner) {
      case MPI_COMBINER_CONTIGUOUS: blocklen = 1; EXA_RETURN_IF_ERROR(place(i, extent, 0, &shift)); break;
      case MPI_COMBINER_VECTOR:
        blocklen = c.ints[1];
        EXA_RETURN_IF_ERROR(place(int64_t(i) * c.ints[2], extent, 0, &shift));
        break;
      case MPI_COMBINER_HVECTOR:
        blocklen = c.ints[1];
        EXA_RETURN_IF_ERROR(place(i, int64_t(c.addrs[0]), 0, &shift));
        break;
      case MPI_COMBINER_INDEXED:
        blocklen = c.ints[size_t(1 + i)];
        EXA_RETURN_IF_ERROR(place(c.ints[size_t(1 + count + i)], extent, 0, &shift));
        break;
      case MPI_COMBINER_HINDEXED:
        blocklen = c.ints[size_t(1 + i)];
        shift = int64_t(c.addrs[size_t(i)]);
        break;
      case MPI_COMBINER_INDEXED_BLOCK:
        blocklen = c.ints[1];
        EXA_RETURN_IF_ERROR(place(c.ints[size_t(2 + i)], extent, 0, &shift));
        break;
      default:  // MPI_COMBINER_HINDEXED_BLOCK
        blocklen = c.ints[1];
        shift = int64_t(c.addrs[size_t(i)]);
        break;
    }
    EXA_RETURN_IF_ERROR(append_block(child, extent, blocklen, shift, out));
  }
  return Status::ok();
}

}  // namespace

Status type_runs(MPI_Datatype type, std::vector<format::ByteRun>* out) {
  out->clear();
  return runs_of(type, out);
}

Status byte_runs_type(const std::vector<format::ByteRun>& sorted, MPI_Datatype* type) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> displs;
  lengths.reserve(sorted.size());
  displs.reserve(sorted.size());
  for (const format::ByteRun& r : sorted)
    for (int64_t done = 0; done < r.length;) {
      const int64_t n = std::min<int64_t>(r.length - done, INT_MAX);
      lengths.push_back(int(n));
      displs.push_back(MPI_Aint(r.offset + done));
      done += n;
    }
  if (lengths.size() > size_t(INT_MAX)) return {NC_EINTOVERFLOW, "too many pieces for one file view"};
  EXA_RETURN_IF_ERROR(
      EXA_MPI(MPI_Type_create_hindexed(int(lengths.size()), lengths.data(), displs.data(), MPI_BYTE, type)));
  Status st = EXA_MPI(MPI_Type_commit(type));
  if (!st.is_ok()) EXA_MPI(MPI_Type_free(type)).set_aside("the commit's failure is reported");
  return st;
}

}  // namespace exa::io
