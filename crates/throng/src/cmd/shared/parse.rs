//! Value parsers of the command line (clap `value_parser`s: a message on error, exit code 2).

/// A finite number (NaN and infinities are usage errors).
pub fn parse_finite(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("expected a finite number, not {s:?}")),
    }
}

/// A positive finite number.
pub fn parse_positive_f32(s: &str) -> Result<f32, String> {
    match parse_finite(s) {
        Ok(v) if v > 0.0 && v <= f32::MAX as f64 => Ok(v as f32),
        _ => Err(format!("expected a positive number, not {s:?}")),
    }
}

/// A fraction in [0, 1].
pub fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("expected a fraction in [0, 1], not {s:?}")),
    }
}

/// `N` (frames per second) or `auto` (each clip on its source keys).
pub fn parse_fps(s: &str) -> Result<throng_bake::Sampling, String> {
    throng_bake::Sampling::parse_fps(s).ok_or_else(|| {
        format!("expected a positive number of frames per second or 'auto', not {s:?}")
    })
}

/// An error budget: `1e-3` (fraction of the bounding diagonal), `2mm`, `0.02u` (file units).
pub fn parse_max_error(s: &str) -> Result<throng_bake::MaxError, String> {
    throng_bake::MaxError::parse(s)
}

/// The sampling `--fps` and `--max-error` ask for (clap keeps them exclusive): the error budget
/// of [`throng_bake::options::DEFAULT_MAX_ERROR`] when neither is given.
pub fn sampling(
    fps: Option<throng_bake::Sampling>,
    max_error: Option<throng_bake::MaxError>,
) -> throng_bake::Sampling {
    match (fps, max_error) {
        (Some(f), _) => f,
        (None, Some(e)) => throng_bake::Sampling::MaxError(e),
        (None, None) => throng_bake::Sampling::default(),
    }
}

/// Influences per vertex: 4 or 8.
pub fn parse_influences(s: &str) -> Result<u32, String> {
    match s {
        "4" => Ok(4),
        "8" => Ok(8),
        _ => Err(format!("influences per vertex must be 4 or 8, not {s:?}")),
    }
}

/// Influences per vertex for a pass, 1..=8.
pub fn parse_influences_any(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(k) if (1..=8).contains(&k) => Ok(k),
        _ => Err(format!("{s:?}: influences are a whole number from 1 to 8")),
    }
}

/// One LOD ratio in (0, 1).
pub fn parse_lod(s: &str) -> Result<f32, String> {
    s.trim()
        .parse::<f32>()
        .ok()
        .filter(|r| r.is_finite() && *r > 0.0 && *r < 1.0)
        .ok_or_else(|| {
            format!("LOD ratio {s:?} must be an index-count ratio between 0 and 1, e.g. 0.5")
        })
}

/// `WIDTHxHEIGHT` in pixels, each 1..=16384.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?}: expected WIDTHxHEIGHT, e.g. 512x512"))?;
    let p = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=16384).contains(n))
            .ok_or_else(|| format!("{v:?}: expected a pixel count 1..=16384"))
    };
    Ok((p(w)?, p(h)?))
}

/// A finite, non-negative number of pixels (`--lod-bias`).
/// `on` or `off`.
pub fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{s:?}: expected on or off")),
    }
}

pub fn parse_lod_bias(s: &str) -> Result<f32, String> {
    s.trim()
        .parse::<f32>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("{s:?}: expected a number of pixels >= 0, e.g. 1"))
}

/// `--lod-influences 4,2,1`: 1 to 4 values of 1..8 for LOD 0, 1, 2, 3; the last repeats.
pub fn parse_lod_influences(s: &str) -> Result<[u32; 4], String> {
    parse_per_lod(s, 1..=8, "influences per vertex 1..8", "values", "4,2,1")
}

/// `--palette-refresh 1,1,2,4`: 1 to 4 refresh intervals of 1..=1024 frames for LOD 0, 1, 2,
/// 3 (update-rate LOD on the palette path); the last repeats.
pub fn parse_palette_refresh(s: &str) -> Result<[u32; 4], String> {
    parse_per_lod(
        s,
        1..=1024,
        "a refresh interval of 1..1024 frames",
        "intervals",
        "1,1,2,4",
    )
}

/// 1 to 4 comma-separated values in `range`, for LOD 0, 1, 2 and 3; the last repeats.
fn parse_per_lod(
    s: &str,
    range: std::ops::RangeInclusive<u32>,
    each: &str,
    what: &str,
    example: &str,
) -> Result<[u32; 4], String> {
    let values: Vec<u32> = s
        .split(',')
        .map(|v| {
            v.trim()
                .parse::<u32>()
                .ok()
                .filter(|k| range.contains(k))
                .ok_or_else(|| format!("{v:?}: expected {each}"))
        })
        .collect::<Result<_, _>>()?;
    if values.is_empty() || values.len() > 4 {
        return Err(format!(
            "{s:?}: expected 1 to 4 comma-separated {what} (LOD 0, 1, 2, 3), e.g. {example}"
        ));
    }
    let last = values[values.len() - 1];
    Ok(std::array::from_fn(|i| {
        values.get(i).copied().unwrap_or(last)
    }))
}

/// `--camera EYE_X,EYE_Y,EYE_Z:TARGET_X,TARGET_Y,TARGET_Z[:FOV_DEG]` (file units, degrees of
/// vertical field of view, default 35), +Y up; near and far planes from the distance.
pub fn parse_camera(s: &str) -> Result<throng_render::Camera, String> {
    let bad = || {
        format!(
            "{s:?}: expected EYE_X,EYE_Y,EYE_Z:TARGET_X,TARGET_Y,TARGET_Z[:FOV_DEG], e.g. \
             0,2,5:0,1,0:35"
        )
    };
    let parts: Vec<&str> = s.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return Err(bad());
    }
    let vec3 = |p: &str| -> Result<glam::Vec3, String> {
        let v: Vec<f32> = p
            .split(',')
            .map(|x| x.trim().parse::<f32>().ok().filter(|v| v.is_finite()))
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        <[f32; 3]>::try_from(v)
            .map(glam::Vec3::from)
            .map_err(|_| bad())
    };
    let (eye, target) = (vec3(parts[0])?, vec3(parts[1])?);
    let fov = match parts.get(2) {
        Some(f) => f
            .trim()
            .parse::<f32>()
            .ok()
            .filter(|f| *f > 1.0 && *f < 179.0)
            .ok_or_else(|| format!("{f:?}: the field of view is degrees in (1, 179)"))?,
        None => 35.0,
    };
    let dist = (eye - target).length();
    if dist <= 0.0 {
        return Err(format!("{s:?}: the eye and the target must differ"));
    }
    Ok(throng_render::Camera::looking_at(
        eye,
        target,
        fov.to_radians(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_refresh_takes_one_to_four_intervals_and_repeats_the_last() {
        assert_eq!(parse_palette_refresh("1,1,2,4"), Ok([1, 1, 2, 4]));
        assert_eq!(parse_palette_refresh("1, 3"), Ok([1, 3, 3, 3]));
        for bad in ["", "0", "1,2,3,4,5", "x", "2000"] {
            assert!(parse_palette_refresh(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn on_and_off_are_the_only_switch_values() {
        assert_eq!(parse_on_off("on"), Ok(true));
        assert_eq!(parse_on_off("off"), Ok(false));
        for bad in ["", "true", "On", "1"] {
            assert!(parse_on_off(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn lod_influences_take_one_to_four_values_of_1_to_8_and_repeat_the_last() {
        assert_eq!(parse_lod_influences("4,2,1"), Ok([4, 2, 1, 1]));
        assert_eq!(parse_lod_influences("8"), Ok([8; 4]));
        assert_eq!(parse_lod_influences(" 4, 4 ,2,1"), Ok([4, 4, 2, 1]));
        for bad in ["", "0", "9", "4,2,1,1,1", "4,,1", "a", "-1"] {
            assert!(parse_lod_influences(bad).is_err(), "{bad:?} accepted");
        }
        assert!(parse_lod_bias("0").is_ok() && parse_lod_bias("-1").is_err());
        assert!(parse_lod_bias("inf").is_err() && parse_lod_bias("NaN").is_err());
    }

    #[test]
    fn cameras_parse_eye_target_and_an_optional_field_of_view() {
        let c = parse_camera("0,2,5:0,1,0").expect("camera");
        assert_eq!(
            (c.eye, c.target),
            (glam::Vec3::new(0.0, 2.0, 5.0), glam::Vec3::Y)
        );
        assert!((c.fov_y - 35f32.to_radians()).abs() < 1e-6);
        let w = parse_camera("1,1,1:0,0,0:60").expect("camera");
        assert!((w.fov_y - 60f32.to_radians()).abs() < 1e-6);
        for bad in [
            "",
            "0,0,0",
            "0,0,0:0,0,0",
            "1,2:0,0,0",
            "0,0,1:0,0,0:0",
            "a,b,c:0,0,0",
            "0,0,1:0,0,0:1:2",
        ] {
            assert!(parse_camera(bad).is_err(), "{bad:?} accepted");
        }
    }
}
