// A small streaming JSON writer: correct string escaping (control characters, quotes, invalid UTF-8
// replaced by U+FFFD), numbers that round-trip (shortest form; whole numbers without a fraction), and
// null for non-finite numbers, which JSON cannot hold. Indented two spaces; arrays and objects may be
// kept on one line (a table's rows).
//
//   JsonWriter w;
//   w.begin_object().key("batch").value(64).key("shape").begin_array(true).value(3).end_array().end_object();
//   std::string text = w.take();
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ridge::engine::render {

class JsonWriter {
 public:
  JsonWriter& begin_object(bool one_line = false);
  JsonWriter& end_object();
  JsonWriter& begin_array(bool one_line = false);
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(double d);
  JsonWriter& value(std::int64_t i);
  JsonWriter& value(int i) { return value(static_cast<std::int64_t>(i)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  // A value rendered elsewhere (a whole JSON document), inserted as it is.
  JsonWriter& raw(std::string_view json);
  // The document, ending in a newline. Throws std::logic_error if a container is still open.
  std::string take();

 private:
  struct Frame {
    bool array;
    bool one_line;
    bool empty = true;
  };
  void before_value();
  void close(bool array);
  void newline();
  std::string out_;
  std::vector<Frame> stack_;
  bool after_key_ = false;
};

// The JSON string literal for `s`, quotes included.
std::string json_quote(std::string_view s);

// `s` made safe for a terminal, a table cell, a CSV field or XML text: bytes that are not UTF-8, and
// control characters (C0, DEL, C1: what terminal escape sequences are made of) other than those in
// `keep` become U+FFFD.
std::string printable(std::string_view s, std::string_view keep = "\t");
// Valid UTF-8, everything else kept (CSV fields: newlines and quotes are the quoting's business).
std::string valid_utf8(std::string_view s);
// A table cell: printable(), and at most kMaxCell bytes, cut at a code point and ended with "...", so
// a 100 KB layer name cannot pad every row of the table to its width.
inline constexpr std::size_t kMaxCell = 60;
std::string table_cell(std::string_view s);
// The JSON number for `d` ("null" when not finite).
std::string json_number(double d);

}  // namespace ridge::engine::render
