//! Reading the JavaScript option objects (`CrowdOptions`, `PlayOptions`, `CrowdSpec`) into
//! the player's Rust values. A field that is missing or `undefined` takes its default; a field
//! of the wrong type is an error that names it.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::error::{message_chain, WebError};
use crate::player::{layout, play_options, ClipRef, CrowdSpec};

/// An options object (or `undefined`).
pub struct Opts<'a>(pub &'a JsValue);

fn field(o: &Opts, key: &str) -> Result<Option<JsValue>, JsValue> {
    if o.0.is_undefined() || o.0.is_null() {
        return Ok(None);
    }
    if !o.0.is_object() {
        return Err(wrong("options", "an object"));
    }
    let v = Reflect::get(o.0, &JsValue::from_str(key))?;
    Ok((!v.is_undefined() && !v.is_null()).then_some(v))
}

fn wrong(key: &str, expected: &str) -> JsValue {
    JsError::new(&format!("{key} must be {expected}")).into()
}

pub fn opt_str(o: &Opts, key: &str) -> Result<Option<String>, JsValue> {
    field(o, key)?
        .map(|v| v.as_string().ok_or_else(|| wrong(key, "a string")))
        .transpose()
}

pub fn opt_f64(o: &Opts, key: &str) -> Result<Option<f64>, JsValue> {
    field(o, key)?
        .map(|v| v.as_f64().ok_or_else(|| wrong(key, "a number")))
        .transpose()
}

fn opt_bool(o: &Opts, key: &str) -> Result<Option<bool>, JsValue> {
    field(o, key)?
        .map(|v| v.as_bool().ok_or_else(|| wrong(key, "true or false")))
        .transpose()
}

fn web(e: WebError) -> JsValue {
    JsError::new(&message_chain(&e)).into()
}

/// A clip given as a name (string) or an index (a whole number ≥ 0).
pub fn clip_ref(v: &JsValue) -> Result<ClipRef, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(ClipRef::Name(s));
    }
    match v.as_f64() {
        Some(i) if i >= 0.0 && i.fract() == 0.0 && i <= u32::MAX as f64 => {
            Ok(ClipRef::Index(i as usize))
        }
        _ => Err(wrong(
            "clip",
            "a clip name or a clip index (a whole number >= 0)",
        )),
    }
}

/// `PlayOptions` (`speed`, `loop`, `startTime`).
pub fn play_opts(v: &JsValue) -> Result<throng_runtime::PlayOptions, JsValue> {
    let o = Opts(v);
    let speed = opt_f64(&o, "speed")?;
    let loop_mode = opt_str(&o, "loop")?;
    let start = opt_f64(&o, "startTime")?;
    play_options(speed, loop_mode.as_deref(), start).map_err(web)
}

/// `CrowdSpec` (`count` required).
pub fn crowd_spec(v: &JsValue) -> Result<CrowdSpec, JsValue> {
    let o = Opts(v);
    let count = opt_f64(&o, "count")?.ok_or_else(|| wrong("count", "given"))?;
    if !(count >= 0.0 && count.fract() == 0.0 && count <= u32::MAX as f64) {
        return Err(wrong("count", "a whole number >= 0"));
    }
    let mut spec = CrowdSpec {
        count: count as u32,
        ..Default::default()
    };
    if let Some(c) = field(&o, "clip")? {
        spec.clip = Some(clip_ref(&c)?);
    }
    spec.stagger = opt_f64(&o, "stagger")?.unwrap_or(0.0);
    spec.time = opt_f64(&o, "time")?.unwrap_or(0.0);
    spec.random_phase = opt_bool(&o, "randomPhase")?.unwrap_or(false);
    if let Some(l) = opt_str(&o, "layout")? {
        spec.layout = layout(&l).map_err(web)?;
    }
    if let Some(s) = opt_f64(&o, "seed")? {
        if !(s >= 0.0 && s.fract() == 0.0 && s <= 9_007_199_254_740_991.0) {
            return Err(wrong("seed", "a whole number >= 0"));
        }
        spec.seed = s as u64;
    }
    Ok(spec)
}

/// A graph parameter's value: a number or a boolean (`true` also fires a trigger).
pub fn param_value(v: &JsValue) -> Result<crate::graph::ParamValue, JsValue> {
    if let Some(b) = v.as_bool() {
        return Ok(crate::graph::ParamValue::Bool(b));
    }
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(crate::graph::ParamValue::Number(x)),
        _ => Err(wrong(
            "a parameter's value",
            "a finite number or true/false",
        )),
    }
}
