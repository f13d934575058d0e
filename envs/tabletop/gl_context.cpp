#include <dvla/envs/tabletop/gl_context.hpp>

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <cstdlib>
#include <cstring>

namespace dvla::envs::tabletop {
namespace {

std::string egl_error(const char* what) {
  char code[16];
  std::snprintf(code, sizeof(code), "0x%04x", eglGetError());
  return std::string(what) + " failed (EGL error " + code + ")";
}

// An NVIDIA EGL device if the driver offers one: it renders on the GPU.
EGLDisplay nvidia_display() {
  auto query_devices =
      reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto query_string = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(
      eglGetProcAddress("eglQueryDeviceStringEXT"));
  auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!query_devices || !query_string || !platform_display) return EGL_NO_DISPLAY;
  EGLDeviceEXT devices[16];
  EGLint count = 0;
  if (!query_devices(16, devices, &count)) return EGL_NO_DISPLAY;
  for (EGLint i = 0; i < count; ++i) {
    const char* ext = query_string(devices[i], EGL_EXTENSIONS);
    if (ext && std::strstr(ext, "EGL_NV_device_cuda"))
      return platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
  }
  return EGL_NO_DISPLAY;
}

EGLDisplay surfaceless_display() {
  auto platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!platform_display) return EGL_NO_DISPLAY;
  return platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
}

struct Display {
  EGLDisplay display = EGL_NO_DISPLAY;
  std::string error;
};

Display open_display() {
  // llvmpipe otherwise starts a rasterizer thread per core for every context, which competes
  // with the env threads; rendering in the calling thread measured faster for small images.
  setenv("LP_NUM_THREADS", "0", /*overwrite=*/0);
  for (EGLDisplay candidate : {nvidia_display(), surfaceless_display()}) {
    if (candidate == EGL_NO_DISPLAY) continue;
    EGLint major = 0, minor = 0;
    if (eglInitialize(candidate, &major, &minor)) return {candidate, ""};
  }
  return {EGL_NO_DISPLAY, egl_error("opening a headless EGL display (NVIDIA device or Mesa "
                                    "surfaceless; is libegl-mesa0 installed?)")};
}

// Initialised once, then read-only: EGL displays are process-wide and eglTerminate would pull
// the display from under every other thread's context.
const Display& shared_display() {
  static const Display display = open_display();
  return display;
}

}  // namespace

Expected<std::unique_ptr<GlContext>> GlContext::create_current() {
  const Display& d = shared_display();
  if (d.display == EGL_NO_DISPLAY) return Error(d.error);
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE,
                                      EGL_PBUFFER_BIT,
                                      EGL_RENDERABLE_TYPE,
                                      EGL_OPENGL_BIT,
                                      EGL_DEPTH_SIZE,
                                      24,
                                      EGL_RED_SIZE,
                                      8,
                                      EGL_GREEN_SIZE,
                                      8,
                                      EGL_BLUE_SIZE,
                                      8,
                                      EGL_NONE};
  EGLConfig config;
  EGLint configs = 0;
  if (!eglChooseConfig(d.display, config_attributes, &config, 1, &configs) || configs < 1)
    return Error(egl_error("choosing an EGL config with OpenGL and a depth buffer"));
  // The bound API is per thread: without this, a worker thread would get an OpenGL ES context
  // and MuJoCo would refuse it.
  if (!eglBindAPI(EGL_OPENGL_API)) return Error(egl_error("eglBindAPI(OpenGL)"));
  EGLContext context = eglCreateContext(d.display, config, EGL_NO_CONTEXT, nullptr);
  if (context == EGL_NO_CONTEXT) return Error(egl_error("eglCreateContext"));
  std::unique_ptr<GlContext> gl(new GlContext(d.display, context));
  if (auto s = gl->make_current(); !s) return s.error();
  return gl;
}

GlContext::~GlContext() {
  if (eglGetCurrentContext() == context_)
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display_, context_);
}

Status GlContext::make_current() {
  if (!eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_))
    return Error(egl_error("eglMakeCurrent"));
  return Status::ok();
}

std::string GlContext::renderer() const {
  using get_string_fn = const unsigned char* (*)(unsigned);
  constexpr unsigned gl_renderer = 0x1F01;  // GL_RENDERER
  auto get_string = reinterpret_cast<get_string_fn>(eglGetProcAddress("glGetString"));
  const unsigned char* name = get_string ? get_string(gl_renderer) : nullptr;
  return name ? reinterpret_cast<const char*>(name) : "unknown";
}

}  // namespace dvla::envs::tabletop
