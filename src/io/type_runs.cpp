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

// Where the runs go: adjacent runs merged, then handed to the sink.
class Emitter {
 public:
  explicit Emitter(const RunSink& sink) : sink_(sink) {}
  Status emit(int64_t offset, int64_t length, int64_t shift) {
    int64_t at = 0;
    if (__builtin_add_overflow(offset, shift, &at)) return {NC_EINTOVERFLOW, "a datatype's displacement overflows"};
    if (pending_.length > 0 && pending_.offset + pending_.length == at) {
      pending_.length += length;
      return Status::ok();
    }
    if (pending_.length > 0) EXA_RETURN_IF_ERROR(sink_(pending_));
    pending_ = {at, length};
    return Status::ok();
  }
  Status finish() {
    if (pending_.length == 0) return Status::ok();
    const ByteRun last = pending_;
    pending_ = {};
    return sink_(last);
  }

 private:
  const RunSink& sink_;
  ByteRun pending_;
};

// shift = a * b + c, overflow-checked.
Status place(int64_t a, int64_t b, int64_t c, int64_t* shift) {
  int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, shift))
    return {NC_EINTOVERFLOW, "a datatype's displacement overflows"};
  return Status::ok();
}

Status runs_of(MPI_Datatype t, int64_t shift, Emitter& out);

// A constructor's child type, repeated at many shifts: its runs kept flat
// when there are few (one walk of its contents), else walked again at each
// shift, so memory stays bounded by kFlatChildRuns whatever the type.
inline constexpr size_t kFlatChildRuns = size_t(1) << 16;
struct Child {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int64_t extent = 0;
  bool flat = false;
  std::vector<ByteRun> runs;
};

Status child_of(MPI_Datatype type, Child* c) {
  MPI_Aint lb = 0, ext = 0;
  EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_get_extent(type, &lb, &ext)));
  c->type = type;
  c->extent = int64_t(ext);
  c->runs.clear();
  bool too_many = false;  // stops the walk: the child is walked again at each use
  RunSink keep = [&](const ByteRun& r) -> Status {
    if (c->runs.size() >= kFlatChildRuns) {
      too_many = true;
      return {NC_ENOMEM, "child type past the flat limit"};
    }
    c->runs.push_back(r);
    return Status::ok();
  };
  Emitter e(keep);
  Status st = runs_of(type, 0, e);
  if (st.is_ok()) st = e.finish();
  c->flat = st.is_ok();
  if (c->flat || !too_many) return st;
  c->runs.clear();
  c->runs.shrink_to_fit();
  return Status::ok();
}

Status emit_child(const Child& c, int64_t shift, Emitter& out) {
  if (!c.flat) return runs_of(c.type, shift, out);
  for (const ByteRun& r : c.runs) EXA_RETURN_IF_ERROR(out.emit(r.offset, r.length, shift));
  return Status::ok();
}

// `blocklen` copies of the child, `extent` apart, from `shift`.
Status append_block(const Child& child, int64_t blocklen, int64_t shift, Emitter& out) {
  for (int64_t j = 0; j < blocklen; ++j) {
    int64_t s = 0;
    EXA_RETURN_IF_ERROR(place(j, child.extent, shift, &s));
    EXA_RETURN_IF_ERROR(emit_child(child, s, out));
  }
  return Status::ok();
}

// The elements of an array (sizes, from the slowest-varying dimension)
// whose index along each dimension k is one of picked[k], in storage order.
Status box_runs(MPI_Datatype element, const std::vector<int64_t>& sizes,
                const std::vector<std::vector<int64_t>>& picked, int64_t base, Emitter& out) {
  const size_t n = sizes.size();
  for (const auto& p : picked)
    if (p.empty()) return Status::ok();
  Child child;
  EXA_RETURN_IF_ERROR(child_of(element, &child));
  std::vector<int64_t> step(n, 1);  // elements between consecutive indices of dimension k
  for (size_t k = n - 1; k-- > 0;) EXA_RETURN_IF_ERROR(place(step[k + 1], sizes[k + 1], 0, &step[k]));
  std::vector<size_t> idx(n, 0);
  for (;;) {
    int64_t row = 0;  // element of the row's index 0 along the fastest dimension
    for (size_t k = 0; k + 1 < n; ++k) EXA_RETURN_IF_ERROR(place(picked[k][idx[k]], step[k], row, &row));
    for (int64_t i : picked[n - 1]) {
      int64_t shift = 0;
      EXA_RETURN_IF_ERROR(place(row + i, child.extent, base, &shift));
      EXA_RETURN_IF_ERROR(emit_child(child, shift, out));
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
Status subarray_runs(const Contents& c, int64_t base, Emitter& out) {
  const int n = c.ints[0];
  const bool fortran = c.ints[size_t(1 + 3 * n)] == MPI_ORDER_FORTRAN;
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> picked;
  for (int j = 0; j < n; ++j) {
    const int k = fortran ? n - 1 - j : j;  // slowest-varying first
    sizes.push_back(c.ints[size_t(1 + k)]);
    picked.push_back(index_range(c.ints[size_t(1 + 2 * n + k)], c.ints[size_t(1 + n + k)]));
  }
  return box_runs(c.types[0], sizes, picked, base, out);
}

// A distributed array (MPI_Type_create_darray): the indices each dimension's
// distribution gives the process `rank` of a row-major grid of psizes, the
// elements in the array's storage order.
Status darray_runs(const Contents& c, int64_t base, Emitter& out) {
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
  return box_runs(c.types[0], sizes, picked, base, out);
}

Status runs_of(MPI_Datatype t, int64_t base, Emitter& out) {
  Contents c;
  EXA_RETURN_IF_ERROR(contents_of(t, &c));
  if (c.combiner == MPI_COMBINER_NAMED) {
    int size = 0;
    EXA_RETURN_IF_ERROR(EXA_MPI(MPI_Type_size(t, &size)));
    if (size > 0) return out.emit(0, size, base);
    return Status::ok();
  }
  // A resized type moves nothing: only its bounds change.
  if (c.combiner == MPI_COMBINER_DUP || c.combiner == MPI_COMBINER_RESIZED) return runs_of(c.types[0], base, out);
  if (c.combiner == MPI_COMBINER_SUBARRAY) return subarray_runs(c, base, out);
  if (c.combiner == MPI_COMBINER_DARRAY) return darray_runs(c, base, out);
  if (c.combiner == MPI_COMBINER_STRUCT) {
    const int count = c.ints[0];
    for (int i = 0; i < count; ++i) {
      Child child;
      EXA_RETURN_IF_ERROR(child_of(c.types[size_t(i)], &child));
      int64_t shift = 0;
      if (__builtin_add_overflow(int64_t(c.addrs[size_t(i)]), base, &shift))
        return {NC_EINTOVERFLOW, "a datatype's displacement overflows"};
      EXA_RETURN_IF_ERROR(append_block(child, c.ints[size_t(1 + i)], shift, out));
    }
    return Status::ok();
  }
  Child child;
  switch (c.combiner) {
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
      EXA_RETURN_IF_ERROR(child_of(c.types[0], &child));
      break;
    default:
      return {NC_ENOTSUPPORT,
              "vard over record sections: the file type's constructor is not handled"};
  }
  const int64_t extent = child.extent;
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
    if (__builtin_add_overflow(shift, base, &shift)) return {NC_EINTOVERFLOW, "a datatype's displacement overflows"};
    EXA_RETURN_IF_ERROR(append_block(child, blocklen, shift, out));
  }
  return Status::ok();
}

}  // namespace

Status for_each_type_run(MPI_Datatype type, const RunSink& sink) {
  Emitter e(sink);
  EXA_RETURN_IF_ERROR(runs_of(type, 0, e));
  return e.finish();
}

Status type_runs(MPI_Datatype type, std::vector<format::ByteRun>* out) {
  out->clear();
  return for_each_type_run(type, [&](const ByteRun& r) {
    out->push_back(r);
    return Status::ok();
  });
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
