//! Accessor decoding (glTF 2.0 §3.6): every component type, byte strides, matrix column
//! padding, `normalized` integers (§3.11 "Animations" and KHR_mesh_quantization use them) and
//! sparse substitution (§3.6.2.3), with every read bounds-checked.
//!
//! The `gltf` crate's reader is not used here: it reads positions, normals and translations as
//! f32 whatever the component type (so quantized files decode to garbage) and panics on
//! out-of-range buffer views in unvalidated documents.

use gltf_json::accessor::{ComponentType, Type};
use gltf_json::validation::Checked;

use crate::error::{ImportError, ImportErrorKind as K};
use crate::source::Source;

/// An accessor's elements as raw component values (integers not yet normalised), row by row.
pub(crate) struct Raw {
    pub count: usize,
    pub components: usize,
    pub component_type: ComponentType,
    pub normalized: bool,
    pub values: Vec<f64>,
}

impl Raw {
    /// Components as f32, normalised integers converted per glTF 2.0 §3.11 (signed: max(c/max, -1)).
    pub fn to_f32(&self) -> Vec<f32> {
        let scale = |c: f64| -> f64 {
            if !self.normalized {
                return c;
            }
            match self.component_type {
                ComponentType::I8 => (c / 127.0).max(-1.0),
                ComponentType::U8 => c / 255.0,
                ComponentType::I16 => (c / 32767.0).max(-1.0),
                ComponentType::U16 => c / 65535.0,
                ComponentType::U32 => c / 4294967295.0,
                ComponentType::F32 => c,
            }
        };
        self.values.iter().map(|&c| scale(c) as f32).collect()
    }

    /// Rows of `N` components as f32 arrays. The caller has checked `components == N`.
    pub fn rows_f32<const N: usize>(&self) -> Vec<[f32; N]> {
        let flat = self.to_f32();
        flat.chunks_exact(N)
            .map(|c| {
                let mut a = [0.0; N];
                a.copy_from_slice(c);
                a
            })
            .collect()
    }
}

/// A label for messages: "accessor 12 (POSITION of mesh 3 primitive 0)".
pub(crate) fn label(index: usize, usage: &str) -> String {
    format!("accessor {index} ({usage})")
}

fn component_size(ct: ComponentType) -> usize {
    match ct {
        ComponentType::I8 | ComponentType::U8 => 1,
        ComponentType::I16 | ComponentType::U16 => 2,
        ComponentType::U32 | ComponentType::F32 => 4,
    }
}

fn type_shape(t: Type) -> (usize, usize) {
    // (columns, rows): vectors are one column.
    match t {
        Type::Scalar => (1, 1),
        Type::Vec2 => (1, 2),
        Type::Vec3 => (1, 3),
        Type::Vec4 => (1, 4),
        Type::Mat2 => (2, 2),
        Type::Mat3 => (3, 3),
        Type::Mat4 => (4, 4),
    }
}

fn read_component(bytes: &[u8], ct: ComponentType) -> f64 {
    match ct {
        ComponentType::I8 => bytes[0] as i8 as f64,
        ComponentType::U8 => bytes[0] as f64,
        ComponentType::I16 => i16::from_le_bytes([bytes[0], bytes[1]]) as f64,
        ComponentType::U16 => u16::from_le_bytes([bytes[0], bytes[1]]) as f64,
        ComponentType::U32 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64,
        ComponentType::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64,
    }
}

/// Upper bound for the values of an accessor without a buffer view (all zeros), so a bogus
/// `count` in a few bytes of JSON cannot allocate without limit: 2^24 values (128 MiB as f64)
/// is a 5.5-million-vertex VEC3, beyond any mesh a crowd draws.
const MAX_ZERO_ACCESSOR_VALUES: usize = 1 << 24;

/// The byte slice of buffer view `view` with its stride, bounds-checked against its buffer.
pub(crate) fn view_bytes<'a>(
    src: &'a Source,
    view: usize,
    element: &str,
    file: &str,
) -> Result<(&'a [u8], Option<usize>), ImportError> {
    let err = |kind| ImportError::new(file, kind);
    let v = src.root.buffer_views.get(view).ok_or_else(|| {
        err(K::BadReference {
            element: element.into(),
            target: format!("bufferView {view}"),
        })
    })?;
    let buffer = v.buffer.value();
    let data = src.buffers.get(buffer).ok_or_else(|| {
        err(K::BadReference {
            element: format!("bufferView {view}"),
            target: format!("buffer {buffer}"),
        })
    })?;
    let start = v.byte_offset.map_or(0, |o| o.0);
    let end = start.saturating_add(v.byte_length.0);
    if end > data.len() as u64 {
        return Err(err(K::Truncated {
            element: format!("bufferView {view} (used by {element})"),
            needed: end,
            available: data.len() as u64,
        }));
    }
    Ok((
        &data[start as usize..end as usize],
        v.byte_stride.map(|s| s.0),
    ))
}

/// Decodes accessor `index` for `usage` (a phrase for messages, e.g. "POSITION of mesh 3
/// primitive 0"), with sparse values applied.
pub(crate) fn read(
    src: &Source,
    index: usize,
    usage: &str,
    file: &str,
) -> Result<Raw, ImportError> {
    let element = label(index, usage);
    let err = |kind| ImportError::new(file, kind);
    let acc = src.root.accessors.get(index).ok_or_else(|| {
        err(K::BadReference {
            element: usage.into(),
            target: format!("accessor {index}"),
        })
    })?;
    let ct = match acc.component_type {
        Checked::Valid(c) => c.0,
        Checked::Invalid => {
            return Err(err(K::InvalidData {
                element,
                reason: "unknown componentType".into(),
            }))
        }
    };
    let ty = match acc.type_ {
        Checked::Valid(t) => t,
        Checked::Invalid => {
            return Err(err(K::InvalidData {
                element,
                reason: "unknown type".into(),
            }))
        }
    };
    let count = acc.count.0 as usize;
    let (cols, rows) = type_shape(ty);
    let csize = component_size(ct);
    let ncomp = cols * rows;
    // Matrix columns start on 4-byte boundaries (glTF 2.0 §3.6.2.4).
    let col_stride = if cols > 1 {
        (rows * csize + 3) & !3
    } else {
        rows * csize
    };
    let elem_size = cols * col_stride;

    let mut values = vec![0.0f64; 0];
    match acc.buffer_view {
        None => {
            if count.saturating_mul(ncomp) > MAX_ZERO_ACCESSOR_VALUES {
                return Err(err(K::InvalidData {
                    element,
                    reason: format!("count {count} without a bufferView is implausibly large"),
                }));
            }
            values.resize(count * ncomp, 0.0);
        }
        Some(view) => {
            let (bytes, stride) = view_bytes(src, view.value(), &element, file)?;
            let stride = stride.unwrap_or(elem_size);
            if stride < elem_size {
                return Err(err(K::InvalidData {
                    element,
                    reason: format!(
                        "byteStride {stride} is smaller than the element size {elem_size}"
                    ),
                }));
            }
            let offset = acc.byte_offset.map_or(0, |o| o.0) as usize;
            if count > 0 {
                let needed = (offset as u64)
                    .saturating_add((count as u64 - 1).saturating_mul(stride as u64))
                    .saturating_add(elem_size as u64);
                if needed > bytes.len() as u64 {
                    return Err(err(K::Truncated {
                        element,
                        needed,
                        available: bytes.len() as u64,
                    }));
                }
            }
            values.reserve(count * ncomp);
            for i in 0..count {
                let base = offset + i * stride;
                for c in 0..cols {
                    for r in 0..rows {
                        let at = base + c * col_stride + r * csize;
                        values.push(read_component(&bytes[at..at + csize], ct));
                    }
                }
            }
        }
    }

    if let Some(sparse) = &acc.sparse {
        apply_sparse(src, sparse, &mut values, count, ncomp, ct, &element, file)?;
    }

    Ok(Raw {
        count,
        components: ncomp,
        component_type: ct,
        normalized: acc.normalized,
        values,
    })
}

#[allow(clippy::too_many_arguments)]
fn apply_sparse(
    src: &Source,
    sparse: &gltf_json::accessor::sparse::Sparse,
    values: &mut [f64],
    count: usize,
    ncomp: usize,
    ct: ComponentType,
    element: &str,
    file: &str,
) -> Result<(), ImportError> {
    let err = |kind| ImportError::new(file, kind);
    let n = sparse.count.0 as usize;
    let ict = match sparse.indices.component_type {
        Checked::Valid(c) => c.0,
        Checked::Invalid => {
            return Err(err(K::InvalidData {
                element: element.into(),
                reason: "sparse indices have an unknown componentType".into(),
            }))
        }
    };
    let isize = component_size(ict);
    let (ibytes, _) = view_bytes(src, sparse.indices.buffer_view.value(), element, file)?;
    let ioff = sparse.indices.byte_offset.0 as usize;
    let (vbytes, _) = view_bytes(src, sparse.values.buffer_view.value(), element, file)?;
    let voff = sparse.values.byte_offset.0 as usize;
    let csize = component_size(ct);
    let elem = ncomp * csize;
    let ineed = (ioff as u64).saturating_add((n as u64).saturating_mul(isize as u64));
    let vneed = (voff as u64).saturating_add((n as u64).saturating_mul(elem as u64));
    if ineed > ibytes.len() as u64 || vneed > vbytes.len() as u64 {
        return Err(err(K::Truncated {
            element: format!("sparse data of {element}"),
            needed: ineed.max(vneed),
            available: ibytes.len().min(vbytes.len()) as u64,
        }));
    }
    let mut previous: Option<usize> = None;
    for k in 0..n {
        let at = ioff + k * isize;
        let target = read_component(&ibytes[at..at + isize], ict) as usize;
        if target >= count {
            return Err(err(K::InvalidData {
                element: element.into(),
                reason: format!("sparse index {target} is not below count {count}"),
            }));
        }
        // An error, not a repair: glTF 2.0 §3.6.2.3 says the indices MUST strictly increase,
        // and with a repeated index readers disagree on which value wins (first or last).
        if let Some(p) = previous.filter(|&p| target <= p) {
            return Err(err(K::InvalidData {
                element: element.into(),
                reason: format!(
                    "sparse indices must strictly increase, but index {k} is {target} after {p}"
                ),
            }));
        }
        previous = Some(target);
        for c in 0..ncomp {
            let at = voff + k * elem + c * csize;
            values[target * ncomp + c] = read_component(&vbytes[at..at + csize], ct);
        }
    }
    Ok(())
}

/// Reads a float-or-normalised accessor that must have `n` components.
pub(crate) fn read_vec<const N: usize>(
    src: &Source,
    index: usize,
    usage: &str,
    file: &str,
) -> Result<Vec<[f32; N]>, ImportError> {
    let raw = read(src, index, usage, file)?;
    if raw.components != N {
        return Err(ImportError::new(
            file,
            K::InvalidData {
                element: label(index, usage),
                reason: format!(
                    "has {} components per element, expected {N}",
                    raw.components
                ),
            },
        ));
    }
    Ok(raw.rows_f32::<N>())
}

/// [`read_vec`], then [`check_finite_rows`]: a float accessor whose every value must be finite.
pub(crate) fn read_finite<const N: usize>(
    src: &Source,
    index: usize,
    usage: &str,
    file: &str,
) -> Result<Vec<[f32; N]>, ImportError> {
    let rows = read_vec::<N>(src, index, usage, file)?;
    check_finite_rows(&rows, index, usage, file)?;
    Ok(rows)
}

/// [`check_finite`] of the rows read from accessor `index` (named as [`label`] names it).
pub(crate) fn check_finite_rows<const N: usize>(
    rows: &[[f32; N]],
    index: usize,
    usage: &str,
    file: &str,
) -> Result<(), ImportError> {
    check_finite(rows.as_flattened(), N, &label(index, usage), file)
}

/// Reads an unsigned-integer accessor (indices, joints) of `n` components per element.
pub(crate) fn read_uint(
    src: &Source,
    index: usize,
    usage: &str,
    n: usize,
    file: &str,
) -> Result<Vec<u32>, ImportError> {
    let raw = read(src, index, usage, file)?;
    let element = label(index, usage);
    if raw.components != n {
        return Err(ImportError::new(
            file,
            K::InvalidData {
                element,
                reason: format!(
                    "has {} components per element, expected {n}",
                    raw.components
                ),
            },
        ));
    }
    match raw.component_type {
        ComponentType::U8 | ComponentType::U16 | ComponentType::U32 => {
            Ok(raw.values.iter().map(|&v| v as u32).collect())
        }
        other => Err(ImportError::new(
            file,
            K::InvalidData {
                element,
                reason: format!("componentType {other:?} is not an unsigned integer type"),
            },
        )),
    }
}

/// Errors with `NonFinite` when any value is NaN or infinite.
pub(crate) fn check_finite(
    values: &[f32],
    components: usize,
    element: &str,
    file: &str,
) -> Result<(), ImportError> {
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(ImportError::new(
            file,
            K::NonFinite {
                element: element.into(),
                at: format!(
                    "element {} component {}",
                    i / components.max(1),
                    i % components.max(1)
                ),
            },
        ));
    }
    Ok(())
}
