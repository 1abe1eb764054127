// A tiny strict JSON parser for the tests: enough to prove that the renderers' output parses and to
// look fields up. Throws std::runtime_error on anything RFC 8259 rejects (that these tests produce).
#pragma once

#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ridge::testing {

struct Json {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;

  const Json& operator[](const std::string& key) const {
    for (const auto& [k, v] : object)
      if (k == key) return v;
    throw std::runtime_error("no key '" + key + "'");
  }
  bool has(const std::string& key) const {
    for (const auto& [k, v] : object)
      if (k == key) return true;
    return false;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}
  Json parse() {
    Json v = value();
    ws();
    if (i_ != s_.size()) fail("trailing text");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw std::runtime_error("JSON: " + what + " at " + std::to_string(i_)); }
  void ws() { while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_; }
  bool eat(char c) { ws(); if (i_ < s_.size() && s_[i_] == c) { ++i_; return true; } return false; }
  void expect(char c) { if (!eat(c)) fail(std::string("expected '") + c + "'"); }
  bool word(const char* w) {
    const std::string t(w);
    if (s_.compare(i_, t.size(), t) == 0) { i_ += t.size(); return true; }
    return false;
  }
  Json value() {
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.type = Json::Type::Object;
      if (eat('}')) return v;
      do {
        ws();
        std::string k = str();
        expect(':');
        v.object.emplace_back(std::move(k), value());
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.type = Json::Type::Array;
      if (eat(']')) return v;
      do v.array.push_back(value()); while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.type = Json::Type::String;
      v.string = str();
    } else if (word("true")) { v.type = Json::Type::Bool; v.boolean = true; }
    else if (word("false")) { v.type = Json::Type::Bool; }
    else if (word("null")) { v.type = Json::Type::Null; }
    else {
      const std::size_t start = i_;
      if (s_[i_] == '-') ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("bad value");
      if (s_[i_] == '0' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))) fail("leading zero");
      while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == 'e' ||
                                s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-'))
        ++i_;
      v.type = Json::Type::Number;
      v.number = std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
    }
    return v;
  }
  std::string str() {
    if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string");
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return out;
      if (c < 0x20) fail("raw control character in a string");
      if (c != '\\') { out += static_cast<char>(c); continue; }
      if (i_ >= s_.size()) fail("bad escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("bad \\u escape");
          const unsigned long cp = std::strtoul(s_.substr(i_, 4).c_str(), nullptr, 16);
          i_ += 4;
          if (cp >= 0x80) fail("test parser only decodes ASCII \\u escapes");
          out += static_cast<char>(cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

inline Json parse_json(const std::string& text) { return JsonParser(text).parse(); }

}  // namespace ridge::testing
