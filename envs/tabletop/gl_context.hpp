#pragma once
// Headless OpenGL through EGL: no display, no X server. One process-wide EGL display (the NVIDIA
// device where there is one, else Mesa's surfaceless platform, rendered by llvmpipe on the CPU)
// and one context per rendering thread: an mjrContext belongs to the GL context that was current
// when it was made, so every env thread needs its own.
#include <memory>
#include <string>

#include <dvla/core/expected.hpp>

namespace dvla::envs::tabletop {

class GlContext {
 public:
  // Creates a context and makes it current on the calling thread.
  static Expected<std::unique_ptr<GlContext>> create_current();
  ~GlContext();
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;

  // Makes this context current on the calling thread (one thread at a time).
  Status make_current();
  // "llvmpipe (LLVM 15.0.6, 256 bits)", "NVIDIA H200/PCIe/SSE2", ...
  std::string renderer() const;

 private:
  GlContext(void* display, void* context) : display_(display), context_(context) {}
  void* display_;
  void* context_;
};

}  // namespace dvla::envs::tabletop
