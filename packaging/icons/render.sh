#!/usr/bin/env bash
# Renders attnlab.svg to the PNGs committed beside it (48, 128, 256 px), so
# building attnlab needs no SVG renderer. Run again after editing the SVG.
# Needs ImageMagick's convert and its SVG delegate, rsvg-convert
# (Debian: apt-get install imagemagick librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")"
command -v rsvg-convert >/dev/null || { echo "render.sh: rsvg-convert is missing (apt-get install librsvg2-bin)" >&2; exit 2; }
for size in 48 128 256; do
  convert -background none attnlab.svg -filter Lanczos -resize "${size}x${size}" -strip "PNG32:attnlab-$size.png"
  echo "attnlab-$size.png: $(identify -format '%wx%h' "attnlab-$size.png")"
done
