#include "attnlab/core/course/case_inputs.hpp"

#include <stdexcept>

namespace attnlab {
namespace {

constexpr int64_t kMaxElements = 64ll << 20;  // 256 MB of floats: no exercise needs more

Shape parse_shape(const nlohmann::json& j) {
    if (!j.is_array() || j.empty() || j.size() > 8) throw std::invalid_argument("\"shape\" must be an array of 1 to 8 sizes");
    Shape s;
    int64_t n = 1;
    for (const auto& d : j) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0) throw std::invalid_argument("\"shape\" sizes must be integers ≥ 0");
        s.push_back(d.get<int64_t>());
        n *= s.back();
        if (n > kMaxElements) throw std::invalid_argument("tensor too large");
    }
    return s;
}

float number(const nlohmann::json& v) {
    if (v.is_number()) return v.get<float>();
    if (v.is_string()) {  // JSON has no infinities: allow "-inf", "inf", "nan"
        const auto& s = v.get_ref<const std::string&>();
        if (s == "-inf") return -std::numeric_limits<float>::infinity();
        if (s == "inf") return std::numeric_limits<float>::infinity();
        if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
    }
    throw std::invalid_argument("tensor values must be numbers (or \"-inf\", \"inf\", \"nan\")");
}

void flatten_nested(const nlohmann::json& j, size_t depth, Shape& shape, std::vector<float>& out) {
    if (j.is_array()) {
        if (depth == shape.size()) {
            if (!out.empty()) throw std::invalid_argument("nested arrays are not rectangular");
            shape.push_back(static_cast<int64_t>(j.size()));
        } else if (static_cast<int64_t>(j.size()) != shape[depth]) {
            throw std::invalid_argument("nested arrays are not rectangular (a row of " + std::to_string(j.size()) +
                                        " where " + std::to_string(shape[depth]) + " was expected)");
        }
        for (const auto& e : j) flatten_nested(e, depth + 1, shape, out);
        return;
    }
    if (depth != shape.size()) throw std::invalid_argument("nested arrays are not rectangular");
    out.push_back(number(j));
}

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

}  // namespace

TensorData random_tensor(const Shape& shape, uint64_t seed, double scale) {
    TensorData t = TensorData::zeros(shape);
    uint64_t state = seed;
    for (float& v : t.data) {
        double u = static_cast<double>(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
        v = static_cast<float>((2.0 * u - 1.0) * scale);
    }
    return t;
}

TensorData parse_tensor_literal(const nlohmann::json& j) {
    if (j.is_array()) {
        TensorData t;
        flatten_nested(j, 0, t.shape, t.data);
        if (t.shape.empty() || t.numel() != static_cast<int64_t>(t.data.size()))
            throw std::invalid_argument("nested arrays are not rectangular");
        return t;
    }
    if (!j.is_object()) throw std::invalid_argument("expected a tensor: nested arrays or an object such as {\"random\": …}");
    if (j.contains("data")) {
        TensorData t;
        t.shape = parse_shape(j.value("shape", nlohmann::json()));
        const auto& d = j["data"];
        if (!d.is_array()) throw std::invalid_argument("\"data\" must be an array of numbers");
        if (static_cast<int64_t>(d.size()) != t.numel())
            throw std::invalid_argument("\"data\" has " + std::to_string(d.size()) + " values but shape " +
                                        shape_to_string(t.shape) + " needs " + std::to_string(t.numel()));
        for (const auto& v : d) t.data.push_back(number(v));
        return t;
    }
    if (j.contains("random")) {
        const auto& r = j["random"];
        if (!r.is_object()) throw std::invalid_argument("\"random\" must be an object with shape, seed and scale");
        Shape shape = parse_shape(r.value("shape", nlohmann::json()));
        const auto seed = r.value("seed", nlohmann::json(1));
        const auto scale = r.value("scale", nlohmann::json(1.0));
        if (!seed.is_number_integer()) throw std::invalid_argument("\"random.seed\" must be an integer");
        if (!scale.is_number() || scale.get<double>() < 0) throw std::invalid_argument("\"random.scale\" must be a number ≥ 0");
        return random_tensor(shape, seed.get<uint64_t>(), scale.get<double>());
    }
    if (j.contains("eye")) {
        const auto& n = j["eye"];
        if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > 8192)
            throw std::invalid_argument("\"eye\" must be a size between 1 and 8192");
        const int64_t size = n.get<int64_t>();
        TensorData t = TensorData::zeros({size, size});
        for (int64_t i = 0; i < size; ++i) t.data[static_cast<size_t>(i * size + i)] = 1.0f;
        return t;
    }
    if (j.contains("full")) {
        const auto& f = j["full"];
        if (!f.is_object()) throw std::invalid_argument("\"full\" must be an object with shape and value");
        TensorData t = TensorData::zeros(parse_shape(f.value("shape", nlohmann::json())));
        const float v = number(f.value("value", nlohmann::json(0.0)));
        for (float& x : t.data) x = v;
        return t;
    }
    if (j.contains("arange")) {
        const auto& a = j["arange"];
        if (!a.is_object()) throw std::invalid_argument("\"arange\" must be an object with shape");
        TensorData t = TensorData::zeros(parse_shape(a.value("shape", nlohmann::json())));
        for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<float>(i);
        return t;
    }
    throw std::invalid_argument("unknown tensor form: use nested arrays, {\"shape\", \"data\"}, random, eye, full or arange");
}

}  // namespace attnlab
