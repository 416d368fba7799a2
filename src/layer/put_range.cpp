#include "layer/put_range.hpp"

#include <utility>

namespace exa::layer {

namespace {
thread_local PutRangeScope* t_scope = nullptr;
}  // namespace

PutRangeScope::PutRangeScope(int varid, const void* buf, convert::SegmentedRange ranges)
    : varid_(varid), buf_(buf), range_(std::move(ranges)), outer_(t_scope) {
  t_scope = this;
}

PutRangeScope::~PutRangeScope() { t_scope = outer_; }

convert::SegmentedRange* put_range_for(int varid, const void* buf) {
  PutRangeScope* s = t_scope;
  if (s == nullptr || s->varid_ != varid || s->buf_ != buf || buf == nullptr) return nullptr;
  ++s->fills_;
  return &s->range_;
}

}  // namespace exa::layer
