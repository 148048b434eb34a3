#pragma once
// A plain-text table for human output: a header row, columns aligned on display width
// (UTF-8 code points), two spaces between columns, the last column not padded.

#include <string>
#include <vector>

namespace agentry::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }
  /// Every line ends with '\n'. Cells are cut to one line (at the first newline).
  std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

/// Display width of UTF-8 text: one column per code point.
std::size_t display_width(const std::string& text);
/// `text` cut to at most `width` columns, ending in "…" when cut.
std::string truncate(const std::string& text, std::size_t width);

}  // namespace agentry::cli
