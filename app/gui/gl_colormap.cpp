// The window's heatmap textures. With the shader (the usual case) a head's
// values go up as an R32F texture, its mask as an R8 one, and each image is
// drawn between two draw-list callbacks that switch to the colour-map program
// and back to Dear ImGui's; the CPU path (rasterize() + RGBA upload) stays for
// a driver that refuses the shader.
#include "gl_colormap.hpp"

#include <GLFW/glfw3.h>
#include <GL/glext.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace attnlab::gui {

namespace {

// GL 2.0+ entry points, loaded through GLFW (the system's gl.h declares 1.x only).
struct Gl {
    PFNGLCREATESHADERPROC CreateShader = nullptr;
    PFNGLSHADERSOURCEPROC ShaderSource = nullptr;
    PFNGLCOMPILESHADERPROC CompileShader = nullptr;
    PFNGLGETSHADERIVPROC GetShaderiv = nullptr;
    PFNGLGETSHADERINFOLOGPROC GetShaderInfoLog = nullptr;
    PFNGLDELETESHADERPROC DeleteShader = nullptr;
    PFNGLCREATEPROGRAMPROC CreateProgram = nullptr;
    PFNGLATTACHSHADERPROC AttachShader = nullptr;
    PFNGLBINDATTRIBLOCATIONPROC BindAttribLocation = nullptr;
    PFNGLLINKPROGRAMPROC LinkProgram = nullptr;
    PFNGLGETPROGRAMIVPROC GetProgramiv = nullptr;
    PFNGLGETPROGRAMINFOLOGPROC GetProgramInfoLog = nullptr;
    PFNGLDELETEPROGRAMPROC DeleteProgram = nullptr;
    PFNGLUSEPROGRAMPROC UseProgram = nullptr;
    PFNGLGETUNIFORMLOCATIONPROC GetUniformLocation = nullptr;
    PFNGLGETATTRIBLOCATIONPROC GetAttribLocation = nullptr;
    PFNGLUNIFORM1IPROC Uniform1i = nullptr;
    PFNGLUNIFORM1FPROC Uniform1f = nullptr;
    PFNGLUNIFORMMATRIX4FVPROC UniformMatrix4fv = nullptr;
    PFNGLACTIVETEXTUREPROC ActiveTexture = nullptr;

    bool load() {
        bool ok = true;
        auto get = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(glfwGetProcAddress(name));
            ok = ok && fn != nullptr;
        };
        get(CreateShader, "glCreateShader");
        get(ShaderSource, "glShaderSource");
        get(CompileShader, "glCompileShader");
        get(GetShaderiv, "glGetShaderiv");
        get(GetShaderInfoLog, "glGetShaderInfoLog");
        get(DeleteShader, "glDeleteShader");
        get(CreateProgram, "glCreateProgram");
        get(AttachShader, "glAttachShader");
        get(BindAttribLocation, "glBindAttribLocation");
        get(LinkProgram, "glLinkProgram");
        get(GetProgramiv, "glGetProgramiv");
        get(GetProgramInfoLog, "glGetProgramInfoLog");
        get(DeleteProgram, "glDeleteProgram");
        get(UseProgram, "glUseProgram");
        get(GetUniformLocation, "glGetUniformLocation");
        get(GetAttribLocation, "glGetAttribLocation");
        get(Uniform1i, "glUniform1i");
        get(Uniform1f, "glUniform1f");
        get(UniformMatrix4fv, "glUniformMatrix4fv");
        get(ActiveTexture, "glActiveTexture");
        return ok;
    }
};

const char* kVertex = R"(#version 130
uniform mat4 ProjMtx;
in vec2 Position;
in vec2 UV;
in vec4 Color;
out vec2 Frag_UV;
void main() {
    Frag_UV = UV;
    gl_Position = ProjMtx * vec4(Position.xy, 0.0, 1.0);
}
)";

// kMaskedColor and kMissingColor of visuals.hpp (a mask texel is 0 or 1 of 255);
// t rounded to the nearest of
// the 1024 steps, as rasterize() does.
const char* kFragment = R"(#version 130
uniform sampler2D Values;
uniform sampler2D Mask;
uniform sampler2D Lut;
uniform float Lo;
uniform float Hi;
uniform float Row;
in vec2 Frag_UV;
out vec4 Out_Color;
void main() {
    float v = texture(Values, Frag_UV).r;
    float m = texture(Mask, Frag_UV).r;
    if (m > 0.5 / 255.0 || (isinf(v) && v < 0.0)) { Out_Color = vec4(72.0, 72.0, 72.0, 255.0) / 255.0; return; }
    if (isnan(v)) { Out_Color = vec4(1.0, 0.0, 1.0, 1.0); return; }
    float t = Hi > Lo ? clamp((v - Lo) / (Hi - Lo), 0.0, 1.0) : 0.5;
    float step = floor(t * 1023.0 + 0.5);
    Out_Color = texture(Lut, vec2((step + 0.5) / 1024.0, (Row + 0.5) / 2.0));
}
)";

GLuint make_texture() {
    GLuint id = 0;
    glGenTextures(1, &id);
    glBindTexture(GL_TEXTURE_2D, id);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    return id;
}

ImTextureID as_id(GLuint t) { return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(t)); }
GLuint as_gl(ImTextureID id) { return static_cast<GLuint>(reinterpret_cast<intptr_t>(id)); }

struct GlTextures : TextureUploader {
    Gl gl;
    GLuint program = 0, lut = 0, no_mask = 0;
    GLint loc_proj = -1, loc_lo = -1, loc_hi = -1, loc_row = -1;
    GLint linked_for[3] = {-2, -2, -2};  // the backend's attribute locations the program was linked with
    std::map<GLuint, GLuint> masks;      // values texture -> its mask texture
    struct Draw {
        GlTextures* self;
        GLuint mask;
        float lo, hi, row;
    };
    std::deque<Draw> draws;  // this frame's images (stable addresses for the callbacks)
    int draws_frame = -1;

    // Compiles the colour-map program; false (and the CPU path) on any failure.
    bool init() {
        if (const char* force = std::getenv("ATTNLAB_CPU_COLORMAP"); force && *force == '1') return false;
        if (!gl.load()) return false;
        auto compile = [&](GLenum kind, const char* src) -> GLuint {
            const GLuint s = gl.CreateShader(kind);
            gl.ShaderSource(s, 1, &src, nullptr);
            gl.CompileShader(s);
            GLint ok = 0;
            gl.GetShaderiv(s, GL_COMPILE_STATUS, &ok);
            if (!ok) {
                char log[1024] = {};
                gl.GetShaderInfoLog(s, sizeof log, nullptr, log);
                std::fprintf(stderr, "attnlab: heatmap shader did not compile, colouring on the CPU: %s\n", log);
                gl.DeleteShader(s);
                return 0;
            }
            return s;
        };
        const GLuint vs = compile(GL_VERTEX_SHADER, kVertex), fs = compile(GL_FRAGMENT_SHADER, kFragment);
        if (!vs || !fs) return false;
        program = gl.CreateProgram();
        gl.AttachShader(program, vs);
        gl.AttachShader(program, fs);
        if (!link(0, 1, 2)) return false;
        gl.DeleteShader(vs);
        gl.DeleteShader(fs);
        // Viridis in row 0, PuOr in row 1, 1024 steps each (the CPU path's table).
        std::vector<uint8_t> pixels(1024 * 2 * 4);
        for (int row = 0; row < 2; ++row)
            for (int i = 0; i < 1024; ++i) {
                const Rgba c = map_color(row == 0 ? ColorMap::Viridis : ColorMap::PuOr, i / 1023.0);
                for (int k = 0; k < 4; ++k) pixels[static_cast<size_t>((row * 1024 + i) * 4 + k)] = c[static_cast<size_t>(k)];
            }
        lut = make_texture();
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 1024, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
        const uint8_t zero = 0;
        no_mask = make_texture();
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, 1, 1, 0, GL_RED, GL_UNSIGNED_BYTE, &zero);
        return glGetError() == GL_NO_ERROR;
    }

    bool link(GLint position, GLint uv, GLint color) {
        if (position >= 0) gl.BindAttribLocation(program, static_cast<GLuint>(position), "Position");
        if (uv >= 0) gl.BindAttribLocation(program, static_cast<GLuint>(uv), "UV");
        if (color >= 0) gl.BindAttribLocation(program, static_cast<GLuint>(color), "Color");
        gl.LinkProgram(program);
        GLint ok = 0;
        gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[1024] = {};
            gl.GetProgramInfoLog(program, sizeof log, nullptr, log);
            std::fprintf(stderr, "attnlab: heatmap shader did not link, colouring on the CPU: %s\n", log);
            return false;
        }
        linked_for[0] = position, linked_for[1] = uv, linked_for[2] = color;
        loc_proj = gl.GetUniformLocation(program, "ProjMtx");
        loc_lo = gl.GetUniformLocation(program, "Lo");
        loc_hi = gl.GetUniformLocation(program, "Hi");
        loc_row = gl.GetUniformLocation(program, "Row");
        gl.UseProgram(program);
        gl.Uniform1i(gl.GetUniformLocation(program, "Values"), 0);
        gl.Uniform1i(gl.GetUniformLocation(program, "Mask"), 1);
        gl.Uniform1i(gl.GetUniformLocation(program, "Lut"), 2);
        gl.UseProgram(0);
        return true;
    }

    bool colors_on_gpu() const override { return program != 0; }

    ImTextureID upload(int width, int height, const uint8_t* rgba) override {
        const GLuint id = make_texture();
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
        return as_id(id);
    }

    ImTextureID upload_values(const HeadMatrix& m) override {
        const GLuint id = make_texture();
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, m.cols, m.rows, 0, GL_RED, GL_FLOAT, m.values.data());
        if (!m.mask.empty()) {
            const GLuint mask = make_texture();
            glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, m.cols, m.rows, 0, GL_RED, GL_UNSIGNED_BYTE, m.mask.data());
            masks[id] = mask;
        }
        return as_id(id);
    }

    void release(ImTextureID id) override {
        GLuint t = as_gl(id);
        if (const auto it = masks.find(t); it != masks.end()) {
            glDeleteTextures(1, &it->second);
            masks.erase(it);
        }
        glDeleteTextures(1, &t);
    }

    // Before the image: our program, its uniforms and the mask and table on
    // texture units 1 and 2 (the image's own texture goes on unit 0).
    static void begin(const ImDrawList*, const ImDrawCmd* cmd) {
        const Draw& d = *static_cast<const Draw*>(cmd->UserCallbackData);
        GlTextures& self = *d.self;
        GLint backend = 0;
        glGetIntegerv(GL_CURRENT_PROGRAM, &backend);
        const GLint pos = self.gl.GetAttribLocation(static_cast<GLuint>(backend), "Position");
        const GLint uv = self.gl.GetAttribLocation(static_cast<GLuint>(backend), "UV");
        const GLint col = self.gl.GetAttribLocation(static_cast<GLuint>(backend), "Color");
        if (pos != self.linked_for[0] || uv != self.linked_for[1] || col != self.linked_for[2]) self.link(pos, uv, col);
        const ImDrawData* dd = ImGui::GetDrawData();
        const float L = dd->DisplayPos.x, R = dd->DisplayPos.x + dd->DisplaySize.x;
        const float T = dd->DisplayPos.y, B = dd->DisplayPos.y + dd->DisplaySize.y;
        const float ortho[4][4] = {
            {2.0f / (R - L), 0.0f, 0.0f, 0.0f},
            {0.0f, 2.0f / (T - B), 0.0f, 0.0f},
            {0.0f, 0.0f, -1.0f, 0.0f},
            {(R + L) / (L - R), (T + B) / (B - T), 0.0f, 1.0f},
        };
        self.gl.UseProgram(self.program);
        self.gl.UniformMatrix4fv(self.loc_proj, 1, GL_FALSE, &ortho[0][0]);
        self.gl.Uniform1f(self.loc_lo, d.lo);
        self.gl.Uniform1f(self.loc_hi, d.hi);
        self.gl.Uniform1f(self.loc_row, d.row);
        self.gl.ActiveTexture(GL_TEXTURE1);
        glBindTexture(GL_TEXTURE_2D, d.mask);
        self.gl.ActiveTexture(GL_TEXTURE2);
        glBindTexture(GL_TEXTURE_2D, self.lut);
        self.gl.ActiveTexture(GL_TEXTURE0);
    }

    void image(ImTextureID id, ImVec2 size, const ColorScale& scale) override {
        if (draws_frame != ImGui::GetFrameCount()) {
            draws.clear();
            draws_frame = ImGui::GetFrameCount();
        }
        const auto it = masks.find(as_gl(id));
        draws.push_back({this, it == masks.end() ? no_mask : it->second, static_cast<float>(scale.lo), static_cast<float>(scale.hi),
                         scale.map == ColorMap::Viridis ? 0.0f : 1.0f});
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddCallback(&GlTextures::begin, &draws.back());
        ImGui::Image(id, size);
        dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
    }
};

// The CPU path alone: RGBA pixels in, nothing on the GPU but the texture.
struct CpuTextures : GlTextures {
    bool colors_on_gpu() const override { return false; }
};

}  // namespace

std::unique_ptr<TextureUploader> make_gl_textures() {
    auto gpu = std::make_unique<GlTextures>();
    if (gpu->init()) return gpu;
    return std::make_unique<CpuTextures>();
}

}  // namespace attnlab::gui
