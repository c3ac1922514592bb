// What a runner tells the grader about a call's launches crosses the socket whole (remote.hpp's
// Codec<Launches>): lab 1's step 2 matches launches by kernel, reads their GPU times, streams and
// grid, and the runner finds each kernel's record again by the correlation id its reply carries.
#include "memlab/grading/catch2.hpp"
#include "memlab/grading/remote.hpp"

#include <stdexcept>
#include <vector>

namespace {

using memlab::grading::KernelLaunch;
using memlab::grading::Launches;
namespace remote = memlab::grading::remote;

Launches two_kernels_on_two_streams() {
  Launches call;
  call.watched = true;
  call.unnamed = 1;
  call.from_other_threads = 2;
  call.modules_loaded = 3;
  call.launched_after_hold = true;
  KernelLaunch add;
  add.kernel = "_Z17vector_add_kernelPKfS0_Pfm";
  add.dynamic_shared_bytes = 0;
  add.grid = {1056, 1, 1};
  add.block = {256, 1, 1};
  add.started_ms = 0.0f;
  add.ended_ms = 0.0087f;
  add.stream_id = 13;
  add.correlation = 4711;
  KernelLaunch tail = add;
  tail.kernel = "_Z11tail_kernelPfm";
  tail.dynamic_shared_bytes = 4096;
  tail.grid = {7, 2, 3};
  tail.block = {32, 4, 1};
  tail.started_ms = 0.0090f;
  tail.ended_ms = 0.0101f;
  tail.stream_id = 14;
  tail.correlation = 4712;
  call.kernels = {add, tail};
  return call;
}

void require_same(const Launches& got, const Launches& sent) {
  CHECK(got.watched == sent.watched);
  CHECK(got.unnamed == sent.unnamed);
  CHECK(got.from_other_threads == sent.from_other_threads);
  CHECK(got.modules_loaded == sent.modules_loaded);
  CHECK(got.launched_after_hold == sent.launched_after_hold);
  REQUIRE(got.kernels.size() == sent.kernels.size());
  for (std::size_t k = 0; k < sent.kernels.size(); ++k) {
    CHECK(got.kernels[k].kernel == sent.kernels[k].kernel);
    CHECK(got.kernels[k].dynamic_shared_bytes == sent.kernels[k].dynamic_shared_bytes);
    CHECK(got.kernels[k].grid == sent.kernels[k].grid);
    CHECK(got.kernels[k].block == sent.kernels[k].block);
    CHECK(got.kernels[k].started_ms == sent.kernels[k].started_ms);
    CHECK(got.kernels[k].ended_ms == sent.kernels[k].ended_ms);
    CHECK(got.kernels[k].stream_id == sent.kernels[k].stream_id);
    CHECK(got.kernels[k].correlation == sent.kernels[k].correlation);
  }
}

}  // namespace

TEST_CASE("a call's launches cross whole: kernels, grid and block, times, streams, correlation ids", "[remote]") {
  const Launches sent = two_kernels_on_two_streams();
  remote::Writer out;
  remote::Codec<Launches>::put(out, sent);
  remote::Reader in(out.bytes());
  require_same(remote::Codec<Launches>::get(in), sent);
  CHECK(in.left() == 0);
}

TEST_CASE("the launches of calls timed in a runner cross one list per call", "[remote]") {
  Launches second = two_kernels_on_two_streams();
  second.kernels.pop_back();
  second.launched_after_hold = false;
  const std::vector<Launches> sent = {two_kernels_on_two_streams(), Launches{}, second};
  remote::Writer out;
  remote::Codec<std::vector<Launches>>::put(out, sent);
  remote::Reader in(out.bytes());
  const std::vector<Launches> got = remote::Codec<std::vector<Launches>>::get(in);
  REQUIRE(got.size() == sent.size());
  for (std::size_t call = 0; call < sent.size(); ++call) require_same(got[call], sent[call]);
  CHECK(in.left() == 0);
}

TEST_CASE("a reply cut short is refused, not read past its end", "[remote]") {
  remote::Writer out;
  remote::Codec<Launches>::put(out, two_kernels_on_two_streams());
  std::vector<unsigned char> cut = out.bytes();
  cut.resize(cut.size() - 1);  // the last correlation id loses a byte
  remote::Reader in(cut);
  CHECK_THROWS_AS(remote::Codec<Launches>::get(in), std::runtime_error);
}
