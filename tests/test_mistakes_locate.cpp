// Where a wrong answer that no catalogued mistake explains first differs,
// worked out from the output alone (reference/src/mistakes_locate.cpp): each
// row is a wrong layer built from a catalogued variant (whose stage is known)
// and the stage the locator must report for it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "attnlab/reference/locate.hpp"
#include "attnlab/reference/registry.hpp"

using namespace attnlab;
using namespace attnlab::reference;

namespace {

Value random_tensor(Shape shape, unsigned seed) {
    std::srand(seed);
    TensorData t = TensorData::zeros(shape);
    for (float& v : t.data) v = static_cast<float>(std::rand()) / static_cast<float>(RAND_MAX) * 2.0f - 1.0f;
    return Value::of_tensor(t);
}

Inputs layer_inputs(Shape x_shape, int64_t d, int n_heads) {
    return {{"x", random_tensor(x_shape, 11)},       {"w_q", random_tensor({d, d}, 12)},
            {"w_k", random_tensor({d, d}, 13)},      {"w_v", random_tensor({d, d}, 14)},
            {"w_o", random_tensor({d, d}, 15)},      {"n_heads", Value::of_int(n_heads)}};
}

// The output of `op`'s catalogued variant `id` whose stage is `stage`.
Value variant_output(const std::string& op, const std::string& id, const std::string& stage, const Inputs& in) {
    for (const Mistake& m : find_op(op)->mistakes)
        if (m.id == id && m.stage == stage) return m.run(in).output;
    FAIL("no variant " << id << " at " << stage);
    return {};
}

}  // namespace

TEST_CASE("locate_first_difference: the stage each kind of wrong layer first differs at") {
    struct Row {
        const char* id;
        const char* variant_stage;
        const char* located;
    };
    const Row rows[] = {
        {"w_o_transposed", "out", "heads"},        // a wrong · W_O reads as "at or before heads"
        {"heads_interleaved", "concat", "concat"},  // right heads, wrong columns
        {"merge_without_transpose", "concat", "concat"},
        {"scale_sqrt_d", "scores", "weights"},     // token 0 still equals V's row 0
        {"k_from_w_q", "K", "weights"},
        {"mask_includes_diagonal", "masked", "heads"},  // token 0 sees nothing: NaN → not undone
        {"mask_missing", "masked", "heads"},       // token 0 sees later keys
        {"k_used_as_v", "heads", "heads"},
    };
    for (const char* op : {"causal_mhsa", "batched_causal_mhsa"}) {
        const bool batched = std::string(op) == "batched_causal_mhsa";
        const Inputs in = batched ? layer_inputs({2, 5, 8}, 8, 2) : layer_inputs({5, 8}, 8, 2);
        CAPTURE(op);
        CHECK(locate_first_difference(op, in, find_op(op)->run(in).output).stage.empty());
        for (const Row& r : rows) {
            CAPTURE(r.id);
            const Value wrong = variant_output(op, r.id, r.variant_stage, in);
            const StageLocation where = locate_first_difference(op, in, wrong);
            // A NaN output (a row masked entirely) cannot be worked back.
            if (std::string(r.id) == "mask_includes_diagonal") CHECK(where.stage.empty());
            else CHECK(where.stage == r.located);
        }
    }
}

TEST_CASE("locate_first_difference: the first sequence of a batch that differs") {
    Inputs in = layer_inputs({3, 4, 8}, 8, 2);
    Value out = find_op("batched_causal_mhsa")->run(in).output;
    // Sequence 1 only: its heads merged in the wrong columns.
    const Value wrong = variant_output("batched_causal_mhsa", "heads_interleaved", "concat", in);
    const int64_t per_sequence = 4 * 8;
    for (int64_t i = per_sequence; i < 2 * per_sequence; ++i) out.tensor.data[static_cast<size_t>(i)] = wrong.tensor.data[static_cast<size_t>(i)];
    const StageLocation where = locate_first_difference("batched_causal_mhsa", in, out);
    CHECK(where.stage == "concat");
    CHECK(where.sequence == 1);
}

TEST_CASE("locate_first_difference: nothing to say for ops without a layer, shapes that do not fit, or a singular W_O") {
    const Inputs in = layer_inputs({5, 8}, 8, 2);
    CHECK(locate_first_difference("split_heads", {{"x", random_tensor({4, 4}, 1)}, {"n_heads", Value::of_int(2)}},
                                  random_tensor({2, 4, 2}, 2)).stage.empty());
    CHECK(locate_first_difference("causal_mhsa", in, random_tensor({5, 4}, 3)).stage.empty());
    CHECK(locate_first_difference("causal_mhsa", in, Value::of_int(3)).stage.empty());
    Inputs singular = in;
    singular["w_o"] = Value::of_tensor(TensorData::zeros({8, 8}));
    CHECK(locate_first_difference("causal_mhsa", singular, random_tensor({5, 8}, 4)).stage.empty());
}
