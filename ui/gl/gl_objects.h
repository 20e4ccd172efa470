#pragma once
// Move-only owners of OpenGL objects. They are created and destroyed on the main thread while
// the context is current (the window owns everything GL and destroys it before the context).
#include <glad/gl.h>

#include <string>
#include <utility>

namespace attnscope::ui {

template <void (*Delete)(GLuint)>
class GlName {
 public:
  GlName() = default;
  explicit GlName(GLuint name) : name_(name) {}
  GlName(GlName&& o) noexcept : name_(std::exchange(o.name_, 0)) {}
  GlName& operator=(GlName&& o) noexcept {
    if (this != &o) {
      reset();
      name_ = std::exchange(o.name_, 0);
    }
    return *this;
  }
  GlName(const GlName&) = delete;
  GlName& operator=(const GlName&) = delete;
  ~GlName() { reset(); }
  void reset() {
    if (name_) Delete(name_);
    name_ = 0;
  }
  GLuint get() const { return name_; }
  explicit operator bool() const { return name_ != 0; }

 private:
  GLuint name_ = 0;
};

void delete_texture(GLuint name);
void delete_framebuffer(GLuint name);
void delete_program(GLuint name);
void delete_vertex_array(GLuint name);

using Texture = GlName<delete_texture>;
using Framebuffer = GlName<delete_framebuffer>;
using Program = GlName<delete_program>;
using VertexArray = GlName<delete_vertex_array>;

// A 2D texture with nearest filtering and clamped edges; data may be null.
Texture make_texture(GLint internal_format, int width, int height, GLenum format, GLenum type, const void* data);
// Compiles and links; throws attnscope::Error with the driver's log.
Program make_program(const std::string& vertex_source, const std::string& fragment_source);

}  // namespace attnscope::ui
