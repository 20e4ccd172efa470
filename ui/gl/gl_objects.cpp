#include "gl/gl_objects.h"

#include "base/error.h"

namespace attnscope::ui {

void delete_texture(GLuint name) { glDeleteTextures(1, &name); }
void delete_framebuffer(GLuint name) { glDeleteFramebuffers(1, &name); }
void delete_program(GLuint name) { glDeleteProgram(name); }
void delete_vertex_array(GLuint name) { glDeleteVertexArrays(1, &name); }

Texture make_texture(GLint internal_format, int width, int height, GLenum format, GLenum type, const void* data) {
  GLuint name = 0;
  glGenTextures(1, &name);
  Texture texture(name);
  glBindTexture(GL_TEXTURE_2D, name);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, internal_format, width, height, 0, format, type, data);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

namespace {

GLuint compile(GLenum stage, const std::string& source) {
  const GLuint shader = glCreateShader(stage);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    throw Error(std::string("the GPU driver could not compile a shader: ") + log);
  }
  return shader;
}

}  // namespace

Program make_program(const std::string& vertex_source, const std::string& fragment_source) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex_source);
  GLuint fs = 0;
  try {
    fs = compile(GL_FRAGMENT_SHADER, fragment_source);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  Program program(glCreateProgram());
  glAttachShader(program.get(), vs);
  glAttachShader(program.get(), fs);
  glLinkProgram(program.get());
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program.get(), GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program.get(), sizeof log, nullptr, log);
    throw Error(std::string("the GPU driver could not link the heatmap shader: ") + log);
  }
  return program;
}

}  // namespace attnscope::ui
