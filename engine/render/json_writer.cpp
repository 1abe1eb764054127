#include "engine/render/json_writer.hpp"

#include <algorithm>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ridge::engine::render {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  // Reject overlong forms, surrogates and code points beyond U+10FFFF.
  if (n == 2 && c < 0xC2) return 0;
  if (n == 3 && ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0))) return 0;
  if (n == 4 && ((c == 0xF0 && b(i + 1) < 0x90) || c > 0xF4 || (c == 0xF4 && b(i + 1) >= 0x90))) return 0;
  return n;
}

}  // namespace

std::string printable(std::string_view s, std::string_view keep) {
  // Nearly every text is plain ASCII: pass it through whole instead of byte by byte (the whole
  // table goes through here once more before it is printed).
  const auto plain = [&](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return (c >= 0x20 && c < 0x7F) || (c < 0x20 && keep.find(ch) != std::string_view::npos);
  };
  if (std::all_of(s.begin(), s.end(), plain)) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = (c < 0x20 || c == 0x7F) ? 1 : utf8_length(s, i);
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;   // U+0080..U+009F
    const bool control = ((c < 0x20 || c == 0x7F) && keep.find(static_cast<char>(c)) == std::string_view::npos) || c1;
    if (n == 0 || control) out += "\xEF\xBF\xBD";
    else out.append(s.substr(i, n));
    i += n == 0 ? 1 : n;
  }
  return out;
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : utf8_length(s, i);
    if (n == 0) out += "\xEF\xBF\xBD";
    else out.append(s.substr(i, n));
    i += n == 0 ? 1 : n;
  }
  return out;
}

std::string table_cell(std::string_view raw) {
  std::string s = printable(raw);
  if (s.size() <= kMaxCell) return s;
  std::size_t cut = kMaxCell - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  return s + "...";
}

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\b': out += "\\b"; ++i; continue;
      case '\f': out += "\\f"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '\r': out += "\\r"; ++i; continue;
      case '\t': out += "\\t"; ++i; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";   // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out + "\"";
}

std::string json_number(double d) {
  if (!std::isfinite(d)) return "null";
  if (d == 0.0) return "0";   // also turns -0 into 0
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  if (ec != std::errc{}) throw std::logic_error("cannot format a number");
  return std::string(buf, end);
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) {
    if (!out_.empty()) throw std::logic_error("JSON: a second top-level value");
    return;
  }
  Frame& f = stack_.back();
  if (!f.array) throw std::logic_error("JSON: a value in an object needs a key");
  if (!f.empty) out_ += f.one_line ? ", " : ",";
  if (!f.one_line) newline();
  f.empty = false;
}

JsonWriter& JsonWriter::begin_object(bool one_line) {
  before_value();
  out_ += '{';
  stack_.push_back({false, one_line});
  return *this;
}

JsonWriter& JsonWriter::begin_array(bool one_line) {
  before_value();
  out_ += '[';
  stack_.push_back({true, one_line});
  return *this;
}

void JsonWriter::close(bool array) {
  if (stack_.empty() || stack_.back().array != array || after_key_)
    throw std::logic_error("JSON: unbalanced containers");
  const Frame f = stack_.back();
  stack_.pop_back();
  if (!f.empty && !f.one_line) newline();
  out_ += array ? ']' : '}';
}

JsonWriter& JsonWriter::end_object() { close(false); return *this; }
JsonWriter& JsonWriter::end_array() { close(true); return *this; }

JsonWriter& JsonWriter::key(std::string_view k) {
  if (stack_.empty() || stack_.back().array || after_key_) throw std::logic_error("JSON: a key outside an object");
  Frame& f = stack_.back();
  if (!f.empty) out_ += f.one_line ? ", " : ",";
  if (!f.one_line) newline();
  f.empty = false;
  out_ += json_quote(k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) { before_value(); out_ += json_quote(s); return *this; }
JsonWriter& JsonWriter::value(double d) { before_value(); out_ += json_number(d); return *this; }
JsonWriter& JsonWriter::value(std::int64_t i) { before_value(); out_ += std::to_string(i); return *this; }
JsonWriter& JsonWriter::value(bool b) { before_value(); out_ += b ? "true" : "false"; return *this; }
JsonWriter& JsonWriter::null() { before_value(); out_ += "null"; return *this; }

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  while (!json.empty() && (json.back() == '\n' || json.back() == ' ')) json.remove_suffix(1);
  out_.append(json);
  return *this;
}

std::string JsonWriter::take() {
  if (!stack_.empty() || after_key_) throw std::logic_error("JSON: document not finished");
  std::string s = std::move(out_);
  out_.clear();
  return s + "\n";
}

}  // namespace ridge::engine::render
