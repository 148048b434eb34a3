#include "cli/table.hpp"

#include <algorithm>

namespace agentry::cli {
namespace {

std::string first_line(const std::string& text) {
  auto nl = text.find('\n');
  if (nl == std::string::npos) return text;
  return text.substr(0, nl) + " …";
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation(static_cast<unsigned char>(c)); }));
}

std::string truncate(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) return text;
  if (width == 0) return {};
  std::string out;
  std::size_t columns = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_continuation(static_cast<unsigned char>(text[i]))) {
      if (columns == width - 1) break;
      ++columns;
    }
    out += text[i];
  }
  return out + "…";
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  for (auto& cell : cells) cell = first_line(cell);
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  std::vector<std::size_t> widths;
  for (const auto& h : headers_) widths.push_back(display_width(h));
  for (const auto& row : rows_)
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      text += cells[i];
      if (i + 1 < cells.size()) text.append(widths[i] - display_width(cells[i]) + 2, ' ');
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  };
  line(headers_);
  for (const auto& row : rows_) line(row);
  return out;
}

}  // namespace agentry::cli
