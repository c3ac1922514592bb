#include "memlab/json.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace memlab {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 if it is invalid.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  else return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  // Reject overlong encodings, UTF-16 surrogates and code points past U+10FFFF.
  const unsigned char second = byte(i + 1);
  if (lead == 0xE0 && second < 0xA0) return 0;
  if (lead == 0xED && second > 0x9F) return 0;
  if (lead == 0xF0 && second < 0x90) return 0;
  if (lead == 0xF4 && second > 0x8F) return 0;
  return length;
}

}  // namespace

std::string JsonWriter::quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, i);
      if (length == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
  return out;
}

void JsonWriter::before_value() {
  if (complete()) throw std::logic_error("JsonWriter: the document is already complete");
  if (!stack_.empty() && stack_.back() == Scope::object) {
    if (!have_key_) throw std::logic_error("JsonWriter: a value inside an object needs a key");
    have_key_ = false;
    return;  // key() already wrote the separator
  }
  if (!first_in_scope_) out_ << ',';
  first_in_scope_ = false;
  started_ = true;
}

void JsonWriter::key(std::string_view name) {
  if (stack_.empty() || stack_.back() != Scope::object || have_key_) {
    throw std::logic_error("JsonWriter: key() outside an object or twice in a row");
  }
  if (!first_in_scope_) out_ << ',';
  first_in_scope_ = false;
  out_ << quote(name) << ':';
  have_key_ = true;
}

void JsonWriter::open(Scope scope) {
  before_value();
  out_ << (scope == Scope::object ? '{' : '[');
  stack_.push_back(scope);
  first_in_scope_ = true;
  started_ = true;
}

void JsonWriter::close(Scope scope) {
  if (stack_.empty() || stack_.back() != scope || have_key_) {
    throw std::logic_error(scope == Scope::object ? "JsonWriter: end_object() does not close an object"
                                                  : "JsonWriter: end_array() does not close an array");
  }
  stack_.pop_back();
  out_ << (scope == Scope::object ? '}' : ']');
  first_in_scope_ = false;
}

void JsonWriter::begin_object() { open(Scope::object); }
void JsonWriter::end_object() { close(Scope::object); }
void JsonWriter::begin_array() { open(Scope::array); }
void JsonWriter::end_array() { close(Scope::array); }

void JsonWriter::value(std::string_view text) {
  before_value();
  out_ << quote(text);
}

void JsonWriter::value(const char* text) { value(std::string_view(text)); }

void JsonWriter::value(double number) {
  before_value();
  if (!std::isfinite(number)) {
    out_ << "null";
    return;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.12g", number);
  out_ << text;
}

void JsonWriter::value(std::int64_t number) {
  before_value();
  out_ << number;
}

void JsonWriter::value(int number) { value(static_cast<std::int64_t>(number)); }

void JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
}

void JsonWriter::null() {
  before_value();
  out_ << "null";
}

}  // namespace memlab
