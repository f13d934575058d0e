#include <dvla/runtime/video/gif_file.hpp>

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include <dvla/runtime/storage/durable_file.hpp>

namespace dvla {
namespace {

std::string gif_error(const char* what, int code) {
  const char* text = GifErrorString(code);
  return std::string("GIF: ") + what + ": " + (text ? text : "error " + std::to_string(code));
}

int append_bytes(GifFileType* gif, const GifByteType* data, int n) {
  static_cast<std::string*>(gif->UserData)
      ->append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  return n;
}

struct CloseEncoder {
  void operator()(GifFileType* gif) const { EGifCloseFile(gif, nullptr); }
};
struct CloseDecoder {
  void operator()(GifFileType* gif) const { DGifCloseFile(gif, nullptr); }
};
struct FreeMap {
  void operator()(ColorMapObject* map) const { GifFreeMapObject(map); }
};

// NETSCAPE2.0: loop forever.
bool put_loop_extension(GifFileType* gif) {
  const unsigned char app[] = "NETSCAPE2.0";
  const unsigned char loop[] = {1, 0, 0};
  return EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
         EGifPutExtensionBlock(gif, 11, app) == GIF_OK &&
         EGifPutExtensionBlock(gif, 3, loop) == GIF_OK && EGifPutExtensionTrailer(gif) == GIF_OK;
}

Status put_frame(GifFileType* gif, const RgbImage& frame, int delay_cs) {
  const size_t pixels = static_cast<size_t>(frame.width) * frame.height;
  std::vector<GifByteType> red(pixels), green(pixels), blue(pixels), indices(pixels);
  for (size_t i = 0; i < pixels; ++i) {
    red[i] = frame.pixels[3 * i];
    green[i] = frame.pixels[3 * i + 1];
    blue[i] = frame.pixels[3 * i + 2];
  }
  int colours = 256;
  std::unique_ptr<ColorMapObject, FreeMap> map(GifMakeMapObject(colours, nullptr));
  if (!map) return Error("GIF: no memory for a colour map");
  if (GifQuantizeBuffer(static_cast<unsigned>(frame.width), static_cast<unsigned>(frame.height),
                        &colours, red.data(), green.data(), blue.data(), indices.data(),
                        map->Colors) != GIF_OK)
    return Error("GIF: quantising a frame failed");
  GraphicsControlBlock control{};
  control.DelayTime = delay_cs;
  control.TransparentColor = NO_TRANSPARENT_COLOR;
  GifByteType extension[4];
  const size_t length = EGifGCBToExtension(&control, extension);
  if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(length), extension) !=
          GIF_OK ||
      EGifPutImageDesc(gif, 0, 0, frame.width, frame.height, false, map.get()) != GIF_OK)
    return Error(gif_error("writing a frame", gif->Error));
  for (int y = 0; y < frame.height; ++y)
    if (EGifPutLine(gif, indices.data() + static_cast<size_t>(y) * frame.width, frame.width) !=
        GIF_OK)
      return Error(gif_error("writing a frame's pixels", gif->Error));
  return {};
}

}  // namespace

Expected<std::string> encode_gif(const std::vector<RgbImage>& frames, int delay_cs) {
  if (frames.empty()) return Error("GIF: no frames");
  const int width = frames[0].width, height = frames[0].height;
  if (width <= 0 || height <= 0 || width > 65535 || height > 65535)
    return Error("GIF: frames of " + std::to_string(width) + "x" + std::to_string(height) +
                 " pixels (1 to 65535 each way)");
  for (const auto& f : frames)
    if (f.width != width || f.height != height ||
        f.pixels.size() != static_cast<size_t>(width) * height * 3)
      return Error("GIF: a frame of " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                   " among frames of " + std::to_string(width) + "x" + std::to_string(height));
  std::string bytes;
  int code = 0;
  std::unique_ptr<GifFileType, CloseEncoder> gif(EGifOpen(&bytes, append_bytes, &code));
  if (!gif) return Error(gif_error("starting a GIF", code));
  EGifSetGifVersion(gif.get(), true);  // GIF89a: frame delays and looping
  if (EGifPutScreenDesc(gif.get(), width, height, 8, 0, nullptr) != GIF_OK ||
      !put_loop_extension(gif.get()))
    return Error(gif_error("writing the header", gif->Error));
  for (const auto& frame : frames)
    if (auto put = put_frame(gif.get(), frame, delay_cs); !put) return put.error();
  if (EGifCloseFile(gif.release(), &code) != GIF_OK)
    return Error(gif_error("finishing the GIF", code));
  return bytes;
}

Status write_gif_file(const std::string& path, const std::vector<RgbImage>& frames, int delay_cs) {
  auto bytes = encode_gif(frames, delay_cs);
  if (!bytes) return bytes.error().within("'" + path + "'");
  return write_file_durably(path, *bytes);
}

namespace {

struct ReadState {
  std::string_view bytes;
  size_t at = 0;
};

int read_bytes(GifFileType* gif, GifByteType* out, int n) {
  auto* state = static_cast<ReadState*>(gif->UserData);
  const size_t count = std::min(static_cast<size_t>(n), state->bytes.size() - state->at);
  std::memcpy(out, state->bytes.data() + state->at, count);
  state->at += count;
  return static_cast<int>(count);
}

// A decoded frame drawn onto the canvas (frames may cover part of the screen).
Status draw(const GifFileType& gif, const SavedImage& image, RgbImage& canvas) {
  const auto& d = image.ImageDesc;
  const ColorMapObject* map = d.ColorMap ? d.ColorMap : gif.SColorMap;
  if (!map) return Error("GIF: a frame without a colour map");
  if (d.Left < 0 || d.Top < 0 || d.Left + d.Width > canvas.width ||
      d.Top + d.Height > canvas.height)
    return Error("GIF: a frame outside the screen");
  for (int y = 0; y < d.Height; ++y)
    for (int x = 0; x < d.Width; ++x) {
      const int index = image.RasterBits[static_cast<size_t>(y) * d.Width + x];
      if (index >= map->ColorCount) return Error("GIF: a pixel outside its colour map");
      const GifColorType c = map->Colors[index];
      uint8_t* p = canvas.at(d.Left + x, d.Top + y);
      p[0] = c.Red;
      p[1] = c.Green;
      p[2] = c.Blue;
    }
  return {};
}

}  // namespace

Expected<std::vector<RgbImage>> decode_gif(std::string_view bytes) {
  ReadState state{bytes};
  int code = 0;
  std::unique_ptr<GifFileType, CloseDecoder> gif(DGifOpen(&state, read_bytes, &code));
  if (!gif) return Error(gif_error("opening", code));
  if (DGifSlurp(gif.get()) != GIF_OK) return Error(gif_error("reading", gif->Error));
  if (gif->SWidth <= 0 || gif->SHeight <= 0) return Error("GIF: an empty screen");
  std::vector<RgbImage> frames;
  RgbImage canvas(gif->SWidth, gif->SHeight);
  for (int i = 0; i < gif->ImageCount; ++i) {
    if (auto drawn = draw(*gif, gif->SavedImages[i], canvas); !drawn) return drawn.error();
    frames.push_back(canvas);
  }
  return frames;
}

}  // namespace dvla
