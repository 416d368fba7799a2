// Output of CDL text to a stdio stream, tracking the column the way ncdump's data
// section does so long lists of values wrap at the same places.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace exa::cdl {

class CdlWriter {
 public:
  /** Writes to `out`; data lines wrap before `max_line_len` columns (ncdump -l, default 80). */
  explicit CdlWriter(std::FILE* out, int max_line_len = 80)
      : out_(out), wrap_at_(static_cast<std::size_t>(max_line_len - 2)) {}

  /** Writes text without touching the tracked column (ncdump's plain printf). */
  void raw(std::string_view text) { std::fwrite(text.data(), 1, text.size(), out_); }

  /** Sets the tracked column, as ncdump does after writing "name = ". */
  void set_column(std::size_t column) { column_ = column; }

  /**
   * Writes an item that must not be split.  If it would pass the wrap column (and is
   * longer than two characters) a newline and a four-space continuation indent come
   * first.  An item ending in '\n' resets the column to zero.
   */
  void item(std::string_view text) {
    const std::size_t n = text.size();
    if (n + column_ > wrap_at_ && n > 2) {
      raw("\n    ");
      column_ = 4;
    }
    raw(text);
    column_ = (n > 0 && text.back() == '\n') ? 0 : column_ + n;
  }

  /** True if every write so far reached the stream. */
  bool ok() const { return std::ferror(out_) == 0; }

 private:
  std::FILE* out_;
  std::size_t wrap_at_;
  std::size_t column_ = 0;
};

}  // namespace exa::cdl
