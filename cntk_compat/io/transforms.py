"""Image transforms for :func:`~cntk.io.ImageDeserializer` (applied in the order given)."""
from ._number_pairs import number_pair, number_range
from ._record import Record


def crop(crop_type='center', crop_size=0, side_ratio=0.0, area_ratio=0.0, aspect_ratio=1.0, jitter_type='none'):
    """Crop: 'center', 'randomside' or 'randomarea' (the random ones also flip horizontally at random).

    ``crop_size`` (pixels, or (width, height)) overrides the ratios; ``side_ratio`` is the crop side
    relative to the shorter image side, ``area_ratio`` the crop area relative to the image area,
    ``aspect_ratio`` the width/height ratio of the window; a pair gives a range sampled uniformly
    (``jitter_type='uniratio'``).
    """
    # CNTK's image reader reads the crop and jitter types in any letter case ('RandomSide', 'uniRatio')
    if _lower(crop_type) not in ('center', 'randomside', 'randomarea', 'multiview10'):
        raise ValueError("crop_type must be 'center', 'randomside', 'randomarea' or 'multiview10', got %r"
                         % (crop_type,))
    if _lower(jitter_type) not in ('none', 'uniratio'):
        raise ValueError("jitter_type must be 'none' or 'uniratio', got %r" % (jitter_type,))
    return Record(type='Crop', crop_type=crop_type.lower(), crop_size=number_pair(crop_size),
                  side_ratio=number_range(side_ratio), area_ratio=number_range(area_ratio),
                  aspect_ratio=number_range(aspect_ratio), jitter_type=jitter_type.lower(),
                  given=dict(cropType=crop_type, jitterType=jitter_type))


def _lower(text):
    return text.lower() if isinstance(text, str) else text


def check_crop(t):
    """CNTK 2.7's errors for a crop transform's ratios, raised when a MinibatchSource opens its reader."""
    for name, (lo, hi) in (('side', t.side_ratio), ('area', t.area_ratio)):
        if (lo, hi) != (0.0, 0.0) and not (lo > 0 and hi <= 1.0):
            raise RuntimeError('Invalid %sRatio value, must be > 0 and <= 1. %sMin must <= %sMax' % (name, name, name))
    if t.side_ratio != (0.0, 0.0) and t.area_ratio != (0.0, 0.0):
        raise RuntimeError('sideRatio and areaRatio cannot be specified simultaneously')


def scale(width, height, channels, interpolations='linear', scale_mode='fill', pad_value=-1):
    """Scale to width x height with ``channels`` channels.

    ``scale_mode``: 'fill' warps, 'crop' scales the shorter side and center-crops, 'pad' scales the
    longer side and pads with ``pad_value`` (-1: replicate the border).  ``interpolations``:
    'nearest', 'linear', 'cubic' or 'lanczos'.
    """
    # the interpolation in any letter case, as CNTK's image reader reads it; the scale mode in lower case only
    # (CNTK: "Invalid scaleMode value, must be fill, crop or pad (all lower case)")
    if _lower(interpolations) not in ('nearest', 'linear', 'cubic', 'lanczos'):
        raise ValueError("interpolations must be 'nearest', 'linear', 'cubic' or 'lanczos', got %r"
                         % (interpolations,))
    if scale_mode not in ('fill', 'crop', 'pad'):
        raise ValueError("Invalid scaleMode value, must be fill, crop or pad (all lower case), got %r" % (scale_mode,))
    if channels not in (1, 3):
        raise ValueError('channels must be 1 or 3, got %r' % (channels,))
    return Record(type='Scale', width=int(width), height=int(height), channels=int(channels),
                  interpolations=interpolations.lower(), scale_mode=scale_mode, pad_value=pad_value,
                  given=dict(interpolations=interpolations))


def mean(filename):
    """Subtract the per-pixel mean stored in ``filename`` (OpenCV matrix XML format)."""
    return Record(type='Mean', mean_file=filename)


def color(brightness_radius=0.0, contrast_radius=0.0, saturation_radius=0.0):
    """Random color jitter: brightness shift by x*mean, contrast factor 1+x, saturation factor 1+x,
    with x uniform in [-radius, radius]."""
    for name, r in (('brightness_radius', brightness_radius), ('contrast_radius', contrast_radius),
                    ('saturation_radius', saturation_radius)):
        if not 0.0 <= r <= 1.0:
            raise ValueError('%s must be within [0, 1], got %r' % (name, r))
    return Record(type='Color', brightness_radius=brightness_radius, contrast_radius=contrast_radius,
                  saturation_radius=saturation_radius)


def _ratio_text(pair):
    return '%g:%g' % tuple(pair)


def transform_config(t):
    """The transform as CNTK's configuration dictionary (camelCase keys, ranges as 'lo:hi' text)."""
    if t['type'] == 'Crop':
        given = t.get('given', {})   # the texts as the caller wrote them, as CNTK's dictionary keeps them
        return dict(type='Crop', cropType=given.get('cropType', t.crop_type), cropSize=_ratio_text(t.crop_size),
                    sideRatio=_ratio_text(t.side_ratio), areaRatio=_ratio_text(t.area_ratio),
                    aspectRatio=_ratio_text(t.aspect_ratio), jitterType=given.get('jitterType', t.jitter_type))
    if t['type'] == 'Scale':
        return dict(type='Scale', width=t.width, height=t.height, channels=t.channels,
                    interpolations=t.get('given', {}).get('interpolations', t.interpolations),
                    scaleMode=t.scale_mode, padValue=t.pad_value)
    if t['type'] == 'Mean':
        return dict(type='Mean', meanFile=t.mean_file)
    if t['type'] == 'Color':
        return dict(type='Color', brightnessRadius=t.brightness_radius, contrastRadius=t.contrast_radius,
                    saturationRadius=t.saturation_radius)
    raise ValueError('unknown image transform type %r' % (t['type'],))

# the public names: CNTK 2.7's (its incidental re-exports included) and its sub-modules; the package's
# helper modules and additions stay out of `import *`
__all__ = [
    "color", "crop", "mean", "scale"
]
