"""Small PNG charts for the tutorials, drawn with Pillow (installed with torchvision, so always present).

Nothing here is CNTK: it only turns the numbers a tutorial collected into pictures a reader can open.
"""
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFont

COLOURS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75)]
WIDTH, HEIGHT, MARGIN = 640, 400, 50


def _frame(title, x_range, y_range, x_label, y_label):
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    left, top, right, bottom = MARGIN, MARGIN // 2 + 10, WIDTH - 20, HEIGHT - MARGIN
    draw.rectangle([left, top, right, bottom], outline="black")
    draw.text((left, 5), title, fill="black", font=font)
    draw.text(((left + right) // 2 - 3 * len(x_label), bottom + 22), x_label, fill="black", font=font)
    draw.text((2, top - 12), y_label, fill="black", font=font)
    (x0, x1), (y0, y1) = x_range, y_range
    for value, pos in ((x0, left), (x1, right - 30)):
        draw.text((pos, bottom + 5), "%.3g" % value, fill="black", font=font)
    for value, pos in ((y1, top), (y0, bottom - 10)):
        draw.text((2, pos), "%.3g" % value, fill="black", font=font)

    def to_pixels(xs, ys):
        px = left + (np.asarray(xs, float) - x0) / ((x1 - x0) or 1.0) * (right - left)
        py = bottom - (np.asarray(ys, float) - y0) / ((y1 - y0) or 1.0) * (bottom - top)
        return list(zip(px.tolist(), py.tolist()))
    return image, draw, font, to_pixels


def _save(image, path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    image.save(path)
    print("saved", path)


def line_chart(path, series, title="", x_label="", y_label=""):
    """``series`` maps a legend name to (xs, ys); draws one line per name."""
    xs_all = np.concatenate([np.asarray(xs, float) for xs, _ in series.values()])
    ys_all = np.concatenate([np.asarray(ys, float) for _, ys in series.values()])
    image, draw, font, to_pixels = _frame(title, (xs_all.min(), xs_all.max()), (ys_all.min(), ys_all.max()),
                                          x_label, y_label)
    for i, (name, (xs, ys)) in enumerate(series.items()):
        colour = COLOURS[i % len(COLOURS)]
        points = to_pixels(xs, ys)
        if len(points) > 1:
            draw.line(points, fill=colour, width=2)
        draw.text((WIDTH - 160, 30 + 12 * i), name, fill=colour, font=font)
    _save(image, path)


def scatter_chart(path, groups, title="", x_label="", y_label="", line=None):
    """``groups`` maps a legend name to an (N, 2) array of points; ``line`` is an optional (xs, ys) to draw."""
    points_all = np.concatenate([np.asarray(p, float) for p in groups.values()])
    image, draw, font, to_pixels = _frame(title, (points_all[:, 0].min(), points_all[:, 0].max()),
                                          (points_all[:, 1].min(), points_all[:, 1].max()), x_label, y_label)
    for i, (name, points) in enumerate(groups.items()):
        colour = COLOURS[i % len(COLOURS)]
        for px, py in to_pixels(np.asarray(points)[:, 0], np.asarray(points)[:, 1]):
            draw.ellipse([px - 2, py - 2, px + 2, py + 2], fill=colour)
        draw.text((WIDTH - 160, 30 + 12 * i), name, fill=colour, font=font)
    if line is not None:
        draw.line(to_pixels(*line), fill="black", width=2)
    _save(image, path)


def image_grid(path, images, columns=8, scale=3):
    """Tiles grey-scale images (N, H, W) with values in [0, 1] into one picture."""
    images = np.clip(np.asarray(images, float), 0.0, 1.0)
    count, height, width = images.shape
    rows = -(-count // columns)
    sheet = np.ones((rows * (height + 1), columns * (width + 1)))
    for i, picture in enumerate(images):
        r, c = divmod(i, columns)
        sheet[r * (height + 1):r * (height + 1) + height, c * (width + 1):c * (width + 1) + width] = picture
    image = Image.fromarray((sheet * 255).astype(np.uint8), "L")
    _save(image.resize((image.width * scale, image.height * scale), Image.NEAREST), path)
