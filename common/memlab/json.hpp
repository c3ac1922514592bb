/// @file json.hpp
/// @brief A small streaming JSON writer for machine-readable results.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace memlab {

/// Writes one JSON document to a stream, inserting commas and checking nesting.
///
///     JsonWriter json(out);
///     json.begin_object();
///     json.field("lab", "lab1");
///     json.key("checks"); json.begin_array(); ... json.end_array();
///     json.end_object();
///
/// Strings are escaped and invalid UTF-8 is replaced by U+FFFD, so text from a
/// student's program or a compiler cannot break the document; non-finite numbers
/// are written as null. Misuse (a value without a key inside an object, closing
/// the wrong bracket) throws std::logic_error.
class JsonWriter {
 public:
  /// Writes to @p out, which must outlive the writer.
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void begin_object();  ///< `{`
  void end_object();    ///< `}`
  void begin_array();   ///< `[`
  void end_array();     ///< `]`
  /// The key of the next value; only inside an object.
  void key(std::string_view name);

  void value(std::string_view text);  ///< a string
  void value(const char* text);       ///< a string (not a bool)
  void value(double number);          ///< a number, or null if not finite
  void value(std::int64_t number);    ///< an integer
  void value(int number);             ///< an integer
  void value(bool flag);              ///< true or false
  void null();                        ///< null

  /// key(name) followed by value(v).
  template <typename V>
  void field(std::string_view name, const V& v) {
    key(name);
    value(v);
  }

  /// True once the outermost object or array has been closed.
  bool complete() const { return started_ && stack_.empty(); }

  /// @p text as a JSON string literal, quotes included.
  static std::string quote(std::string_view text);

 private:
  enum class Scope { object, array };
  void before_value();
  void open(Scope scope);
  void close(Scope scope);

  std::ostream& out_;
  std::vector<Scope> stack_;
  bool first_in_scope_ = true;
  bool have_key_ = false;
  bool started_ = false;
};

}  // namespace memlab
