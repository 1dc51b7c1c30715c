// The runner's cache of reference sides (check/expected.hpp): computed once
// per key, least recently used out past its budget, nothing kept from a
// computation that threw or from an entry larger than the whole budget.
#include <doctest/doctest.h>

#include <stdexcept>

#include "attnlab/core/check/expected.hpp"

using namespace attnlab;

namespace {

// An entry holding `floats` floats of output (4 bytes each).
ExpectedCase entry_of(size_t floats, float fill = 1.0f) {
    ExpectedCase e;
    e.output = Value::of_tensor(TensorData({static_cast<int64_t>(floats)}, std::vector<float>(floats, fill)));
    return e;
}

}  // namespace

TEST_CASE("ExpectedCache: one computation per key, the same entry after") {
    ExpectedCache cache(1 << 20);
    int computed = 0;
    auto compute = [&] { ++computed; return entry_of(10, 2.0f); };
    const auto first = cache.get("a", compute);
    const auto second = cache.get("a", compute);
    CHECK(computed == 1);
    CHECK(first == second);
    CHECK(second->output.tensor.data.at(3) == 2.0f);
    CHECK(cache.bytes() == 40);
    cache.get("b", compute);
    CHECK(computed == 2);
    CHECK(cache.entries() == 2);
}

TEST_CASE("ExpectedCache: past its budget the least recently used entry goes") {
    ExpectedCache cache(250);  // room for two entries of 100 bytes, not three
    int computed = 0;
    auto compute = [&] { ++computed; return entry_of(25); };
    cache.get("a", compute);
    cache.get("b", compute);
    cache.get("a", compute);  // a is now the most recently used
    cache.get("c", compute);  // b goes
    CHECK(computed == 3);
    CHECK(cache.entries() == 2);
    CHECK(cache.bytes() == 200);
    cache.get("a", compute);
    CHECK(computed == 3);
    cache.get("b", compute);
    CHECK(computed == 4);
}

TEST_CASE("ExpectedCache: an entry larger than the budget is returned, not kept") {
    ExpectedCache cache(100);
    int computed = 0;
    auto compute = [&] { ++computed; return entry_of(1000); };
    CHECK(cache.get("big", compute)->output.tensor.data.size() == 1000);
    CHECK(cache.entries() == 0);
    cache.get("big", compute);
    CHECK(computed == 2);
}

TEST_CASE("ExpectedCache: a computation that throws keeps nothing") {
    ExpectedCache cache(1 << 20);
    CHECK_THROWS_AS(cache.get("bad", []() -> ExpectedCase { throw std::runtime_error("does not fit"); }), std::runtime_error);
    CHECK(cache.entries() == 0);
    int computed = 0;
    cache.get("bad", [&] { ++computed; return entry_of(1); });
    CHECK(computed == 1);
}

TEST_CASE("ExpectedCache: stages count towards the budget") {
    ExpectedCase e = entry_of(10);
    e.stages.push_back({"scores", TensorData({5, 5}, std::vector<float>(25, 0.0f))});
    CHECK(expected_bytes(e) == 4 * (10 + 25));
}

TEST_CASE("case_key: the same for the same arguments, different for others") {
    Exercise ex;
    ex.id = "ex";
    ex.reference = "op";
    Case a, b, c;
    a.args = b.args = {Value::of_int(3)};
    c.args = {Value::of_int(4)};
    CHECK(case_key(ex, a) == case_key(ex, b));
    CHECK(case_key(ex, a) != case_key(ex, c));
    Exercise other = ex;
    other.id = "other";
    CHECK(case_key(other, a) != case_key(ex, a));
}
