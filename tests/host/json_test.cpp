#include "memlab/grading/catch2.hpp"
#include "memlab/json.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

TEST_CASE("JSON objects and arrays get commas and nesting right", "[json]") {
  std::ostringstream out;
  memlab::JsonWriter json(out);
  json.begin_object();
  json.field("lab", "lab1");
  json.field("steps", 4);
  json.field("done", false);
  json.key("ratios");
  json.begin_array();
  json.value(1.5);
  json.value(2.0);
  json.null();
  json.end_array();
  json.key("empty");
  json.begin_object();
  json.end_object();
  json.end_object();
  CHECK(json.complete());
  CHECK(out.str() == R"({"lab":"lab1","steps":4,"done":false,"ratios":[1.5,2,null],"empty":{}})");
}

TEST_CASE("JSON strings escape quotes, backslashes and control characters", "[json]") {
  CHECK(memlab::JsonWriter::quote("say \"hi\"\\") == R"("say \"hi\"\\")");
  CHECK(memlab::JsonWriter::quote("a\nb\tc") == R"("a\nb\tc")");
  CHECK(memlab::JsonWriter::quote(std::string("\x01\x1f", 2)) == R"("\u0001\u001f")");
}

TEST_CASE("JSON strings keep valid UTF-8 and replace invalid bytes", "[json]") {
  CHECK(memlab::JsonWriter::quote("µs") == "\"µs\"");
  CHECK(memlab::JsonWriter::quote("\xff ok") == "\"\xEF\xBF\xBD ok\"");
  CHECK(memlab::JsonWriter::quote("\xC3") == "\"\xEF\xBF\xBD\"");      // truncated sequence
  CHECK(memlab::JsonWriter::quote("\xC0\xAF") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");  // overlong '/'
}

TEST_CASE("JSON numbers: non-finite values become null", "[json]") {
  std::ostringstream out;
  memlab::JsonWriter json(out);
  json.begin_array();
  json.value(std::nan(""));
  json.value(HUGE_VAL);
  json.value(0.1);
  json.end_array();
  CHECK(out.str() == "[null,null,0.1]");
}

TEST_CASE("JSON writer misuse throws instead of writing a broken document", "[json]") {
  std::ostringstream out;
  memlab::JsonWriter json(out);
  json.begin_object();
  CHECK_THROWS_AS(json.value(1), std::logic_error);  // a value needs a key in an object
  CHECK_THROWS_AS(json.end_array(), std::logic_error);
  json.key("k");
  CHECK_THROWS_AS(json.key("again"), std::logic_error);
  json.value(1);
  json.end_object();
  CHECK_THROWS_AS(json.value(2), std::logic_error);  // the document is complete
}
