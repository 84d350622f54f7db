//! Building a [`Graph`] from its file: every name resolved, every number and kind checked, all
//! problems collected (not only the first) so that `throng graph check` can list them.

use std::collections::HashMap;

use throng_asset::{ClipInfo, LoopMode};

use crate::error::Problem;
use crate::file::{
    ConditionFile, GraphFile, MotionFile, ParamKind, StateFile, TransitionFile, FORMAT_VERSION,
};
use crate::graph::{
    ClipRef, Condition, Graph, Motion, Parameter, State, Test, Transition, MAX_INT, MAX_STATES,
};
use crate::ids::EventId;

impl Graph {
    /// Resolves and checks a parsed graph; on failure every problem found (errors first in
    /// file order, no warnings). [`crate::GraphBuilder`] is its one caller.
    pub(crate) fn resolve(file: &GraphFile, clips: &[ClipInfo]) -> Result<Graph, Vec<Problem>> {
        let mut b = Builder {
            clips,
            problems: Vec::new(),
            params: HashMap::new(),
            states: HashMap::new(),
            events: Vec::new(),
        };
        if file.version != FORMAT_VERSION {
            b.problems.push(Problem::Version {
                found: file.version,
                supported: FORMAT_VERSION,
            });
        }
        if file.states.is_empty() {
            b.problems.push(Problem::NoStates);
        }
        if file.states.len() > MAX_STATES {
            b.problems.push(Problem::TooMany {
                count: file.states.len(),
                max: MAX_STATES,
            });
        }
        let parameters: Vec<Parameter> = file
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| b.parameter(i, p))
            .collect();
        for (i, s) in file.states.iter().enumerate() {
            if b.states.insert(s.name.clone(), i).is_some() {
                b.problems.push(Problem::Duplicate {
                    what: "state",
                    name: s.name.clone(),
                });
            }
        }
        let states: Vec<State> = file
            .states
            .iter()
            .map(|s| b.state(s, &parameters))
            .collect();
        let entry = match &file.entry {
            Some(name) => b.state_index("entry", name).unwrap_or(0),
            None => 0,
        };
        let transitions: Vec<Transition> = file
            .transitions
            .iter()
            .enumerate()
            .map(|(i, t)| b.transition(i, t, &parameters))
            .collect();
        if b.problems.iter().any(Problem::is_error) {
            return Err(b.problems);
        }
        Ok(Graph {
            parameters,
            states,
            transitions,
            entry,
            events: b.events,
        })
    }
}

struct Builder<'a> {
    clips: &'a [ClipInfo],
    problems: Vec<Problem>,
    params: HashMap<String, usize>,
    states: HashMap<String, usize>,
    events: Vec<String>,
}

impl Builder<'_> {
    fn parameter(&mut self, i: usize, p: &crate::file::ParameterFile) -> Parameter {
        let element = format!("parameter \"{}\"", p.name);
        if self.params.insert(p.name.clone(), i).is_some() {
            self.problems.push(Problem::Duplicate {
                what: "parameter",
                name: p.name.clone(),
            });
        }
        let default = match (&p.default, p.kind) {
            (None, _) => 0.0,
            (Some(v), ParamKind::Float | ParamKind::Int) => match v.as_f64() {
                Some(x) if finite_f32(x) && (p.kind == ParamKind::Float || valid_int(x)) => {
                    x as f32
                }
                _ => {
                    self.problems.push(Problem::BadNumber {
                        element,
                        what: "the default",
                        value: v.to_string(),
                        rule: if p.kind == ParamKind::Int {
                            "an integer of magnitude at most 2^24"
                        } else {
                            "a finite number (as an f32: magnitude at most 3.4e38)"
                        },
                    });
                    0.0
                }
            },
            (Some(v), ParamKind::Bool) => match v.as_bool() {
                Some(b) => f32::from(u8::from(b)),
                None => {
                    self.problems.push(Problem::BadNumber {
                        element,
                        what: "the default",
                        value: v.to_string(),
                        rule: "true or false",
                    });
                    0.0
                }
            },
            (Some(_), ParamKind::Trigger) => {
                self.problems.push(Problem::BadShape {
                    element,
                    what: "a trigger has no default (it starts unset)".into(),
                });
                0.0
            }
        };
        Parameter {
            name: p.name.clone(),
            kind: p.kind,
            default,
        }
    }

    fn event(&mut self, name: &Option<String>) -> Option<EventId> {
        let name = name.as_ref()?;
        let i = match self.events.iter().position(|e| e == name) {
            Some(i) => i,
            None => {
                self.events.push(name.clone());
                self.events.len() - 1
            }
        };
        Some(EventId(i as u32))
    }

    fn param_of(
        &mut self,
        element: &str,
        name: &str,
        params: &[Parameter],
        allowed: &[ParamKind],
        expected: &'static str,
    ) -> Option<usize> {
        let Some(&i) = self.params.get(name) else {
            self.problems.push(Problem::UnknownParameter {
                element: element.to_string(),
                name: name.to_string(),
            });
            return None;
        };
        let kind = params[i].kind;
        if !allowed.contains(&kind) {
            self.problems.push(Problem::TypeMismatch {
                element: element.to_string(),
                name: name.to_string(),
                found: kind.name(),
                expected,
            });
            return None;
        }
        Some(i)
    }

    fn clip(&mut self, element: &str, name: &str) -> ClipRef {
        match self.clips.iter().position(|c| c.name == name) {
            Some(i) => ClipRef {
                clip: i as u32,
                duration: self.clips[i].duration,
            },
            None => {
                let known: Vec<&str> = self.clips.iter().map(|c| c.name.as_str()).collect();
                self.problems.push(Problem::UnknownClip {
                    element: element.to_string(),
                    clip: name.to_string(),
                    known: if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    },
                });
                ClipRef {
                    clip: 0,
                    duration: 0.0,
                }
            }
        }
    }

    fn number(&mut self, element: &str, what: &'static str, v: f64, nonneg: bool) -> bool {
        let ok = finite_f32(v) && (!nonneg || v >= 0.0);
        if !ok {
            self.problems.push(Problem::BadNumber {
                element: element.to_string(),
                what,
                value: v.to_string(),
                rule: if nonneg {
                    "finite (as an f32: magnitude at most 3.4e38) and at least 0"
                } else {
                    "finite (as an f32: magnitude at most 3.4e38)"
                },
            });
        }
        ok
    }

    fn axis(&mut self, element: &str, what: &str, values: &[f32]) -> bool {
        for &v in values {
            if !self.number(element, "a blend threshold", v as f64, false) {
                return false;
            }
        }
        if values.windows(2).any(|w| w[0] >= w[1]) {
            self.problems.push(Problem::BadShape {
                element: element.to_string(),
                what: format!("{what} must be strictly increasing"),
            });
            return false;
        }
        true
    }

    fn state(&mut self, s: &StateFile, params: &[Parameter]) -> State {
        let element = format!("state \"{}\"", s.name);
        let numeric = [ParamKind::Float, ParamKind::Int];
        let motion = match &s.motion {
            MotionFile::Clip(c) => {
                let clip = self.clip(&element, &c.name);
                let loop_mode = c.loop_mode.unwrap_or_else(|| {
                    self.clips
                        .get(clip.clip as usize)
                        .map_or(LoopMode::Loop, |c| c.loop_mode)
                });
                Motion::Clip { clip, loop_mode }
            }
            MotionFile::Blend1d(b) => {
                let parameter = self
                    .param_of(&element, &b.parameter, params, &numeric, "a float or int")
                    .unwrap_or(0);
                if b.points.is_empty() {
                    self.problems.push(Problem::BadShape {
                        element: element.clone(),
                        what: "a 1D blend space needs at least one point".into(),
                    });
                }
                let at: Vec<f32> = b.points.iter().map(|p| p.at).collect();
                self.axis(&element, "the thresholds", &at);
                let clips = b
                    .points
                    .iter()
                    .map(|p| self.clip(&element, &p.clip))
                    .collect();
                Motion::Blend1d {
                    parameter,
                    at,
                    clips,
                }
            }
            MotionFile::Blend2d(b) => {
                let x = self
                    .param_of(&element, &b.x, params, &numeric, "a float or int")
                    .unwrap_or(0);
                let y = self
                    .param_of(&element, &b.y, params, &numeric, "a float or int")
                    .unwrap_or(0);
                self.grid(&element, b, x, y)
            }
        };
        let speed = s.speed.unwrap_or(1.0);
        self.number(&element, "the speed", speed as f64, true);
        let speed_parameter = s
            .speed_parameter
            .as_ref()
            .and_then(|n| self.param_of(&element, n, params, &[ParamKind::Float], "a float"));
        State {
            name: s.name.clone(),
            motion,
            speed,
            speed_parameter,
            on_enter: self.event(&s.on_enter),
            on_exit: self.event(&s.on_exit),
        }
    }

    fn grid(&mut self, element: &str, b: &crate::file::Blend2dFile, x: usize, y: usize) -> Motion {
        let distinct = |k: usize| {
            let mut v: Vec<f32> = b.points.iter().map(|p| p.at[k]).collect();
            v.sort_by(f32::total_cmp);
            v.dedup();
            v
        };
        let (xs, ys) = (distinct(0), distinct(1));
        let mut clips = vec![None; xs.len() * ys.len()];
        let ok = self.axis(element, "the x values", &xs) && self.axis(element, "the y values", &ys);
        if b.points.is_empty() {
            self.problems.push(Problem::BadShape {
                element: element.to_string(),
                what: "a 2D blend space needs at least one point".into(),
            });
        }
        for p in &b.points {
            let c = self.clip(element, &p.clip);
            if !ok {
                continue;
            }
            // both found: the values come from these very points
            let ix = xs.iter().position(|&v| v == p.at[0]).unwrap_or(0);
            let iy = ys.iter().position(|&v| v == p.at[1]).unwrap_or(0);
            let slot = &mut clips[iy * xs.len() + ix];
            if slot.is_some() {
                self.problems.push(Problem::BadShape {
                    element: element.to_string(),
                    what: format!("two points at ({}, {})", p.at[0], p.at[1]),
                });
            }
            *slot = Some(c);
        }
        if ok && clips.iter().any(Option::is_none) {
            self.problems.push(Problem::BadShape {
                element: element.to_string(),
                what: format!(
                    "the points must fill a grid: {} x values × {} y values need {} points, one at every pair; {} given",
                    xs.len(),
                    ys.len(),
                    xs.len() * ys.len(),
                    b.points.len()
                ),
            });
        }
        let fallback = ClipRef {
            clip: 0,
            duration: 0.0,
        };
        Motion::Blend2d {
            x,
            y,
            xs,
            ys,
            clips: clips.into_iter().map(|c| c.unwrap_or(fallback)).collect(),
        }
    }

    fn state_index(&mut self, element: &str, name: &str) -> Option<usize> {
        let i = self.states.get(name).copied();
        if i.is_none() {
            self.problems.push(Problem::UnknownState {
                element: element.to_string(),
                name: name.to_string(),
            });
        }
        i
    }

    fn transition(&mut self, i: usize, t: &TransitionFile, params: &[Parameter]) -> Transition {
        let element = format!("transition {i} (\"{}\" -> \"{}\")", t.from, t.to);
        let from = if t.from == "*" {
            None
        } else {
            self.state_index(&element, &t.from)
        };
        let to = self.state_index(&element, &t.to).unwrap_or(0);
        let mut triggers = Vec::new();
        let conditions = t
            .conditions
            .iter()
            .filter_map(|c| {
                let c = self.condition(&element, c, params)?;
                if params[c.parameter].kind == ParamKind::Trigger {
                    triggers.push(c.parameter);
                }
                Some(c)
            })
            .collect();
        if let Some(e) = t.exit_time {
            self.number(&element, "the exit time", e, true);
        }
        self.number(&element, "the duration", t.duration, true);
        self.number(&element, "the offset", t.offset, false);
        if t.conditions.is_empty() && t.exit_time.is_none() {
            self.problems.push(Problem::AlwaysFires {
                element: element.clone(),
            });
        }
        Transition {
            from,
            to,
            conditions,
            exit_time: t.exit_time,
            duration: t.duration,
            unit: t.duration_unit,
            offset: t.offset,
            interruption: t.interruption,
            triggers,
        }
    }

    fn condition(
        &mut self,
        element: &str,
        c: &ConditionFile,
        params: &[Parameter],
    ) -> Option<Condition> {
        let all = [
            ParamKind::Float,
            ParamKind::Int,
            ParamKind::Bool,
            ParamKind::Trigger,
        ];
        let parameter = self.param_of(element, &c.parameter, params, &all, "any")?;
        let kind = params[parameter].kind;
        let element = format!("{element}, condition on \"{}\"", c.parameter);
        let test = match kind {
            ParamKind::Trigger => {
                if c.op.is_some() || c.value.is_some() {
                    self.problems.push(Problem::BadShape {
                        element,
                        what: "a trigger condition has no op or value (it holds while the trigger is set)".into(),
                    });
                    return None;
                }
                Test::IsSet
            }
            ParamKind::Bool => {
                let want = match &c.value {
                    None => true,
                    Some(v) => match v.as_bool() {
                        Some(b) => b,
                        None => {
                            self.problems.push(Problem::TypeMismatch {
                                element,
                                name: c.parameter.clone(),
                                found: "bool",
                                expected: "a true/false value",
                            });
                            return None;
                        }
                    },
                };
                let eq = match c.op.as_deref() {
                    None | Some("==") => true,
                    Some("!=") => false,
                    Some(op) => {
                        self.problems.push(Problem::BadOperator {
                            element,
                            op: op.to_string(),
                            allowed: "==, != for a bool",
                        });
                        return None;
                    }
                };
                if want == eq {
                    Test::IsSet
                } else {
                    Test::IsClear
                }
            }
            ParamKind::Float | ParamKind::Int => {
                let Some(v) = c.value.as_ref() else {
                    self.problems.push(Problem::BadShape {
                        element,
                        what: "a number condition needs a value".into(),
                    });
                    return None;
                };
                let Some(x) = v.as_f64() else {
                    self.problems.push(Problem::TypeMismatch {
                        element,
                        name: c.parameter.clone(),
                        found: kind.name(),
                        expected: "a number value",
                    });
                    return None;
                };
                if !finite_f32(x) || (kind == ParamKind::Int && !valid_int(x)) {
                    self.problems.push(Problem::BadNumber {
                        element,
                        what: "the value",
                        value: x.to_string(),
                        rule: if kind == ParamKind::Int {
                            "an integer of magnitude at most 2^24"
                        } else {
                            "finite"
                        },
                    });
                    return None;
                }
                let x = x as f32;
                match c.op.as_deref().unwrap_or("") {
                    ">" => Test::Greater(x),
                    "<" => Test::Less(x),
                    ">=" => Test::GreaterEq(x),
                    "<=" => Test::LessEq(x),
                    "==" => Test::Equal(x),
                    "!=" => Test::NotEqual(x),
                    op => {
                        self.problems.push(Problem::BadOperator {
                            element,
                            op: op.to_string(),
                            allowed: ">, <, >=, <=, ==, !=",
                        });
                        return None;
                    }
                }
            }
        };
        Some(Condition { parameter, test })
    }
}

fn valid_int(x: f64) -> bool {
    x.fract() == 0.0 && x.abs() <= MAX_INT as f64
}

/// Finite, and still finite once stored as an f32 (parameters, speeds, thresholds and
/// condition values are kept in f32: 1e300 would become infinity there).
fn finite_f32(x: f64) -> bool {
    x.is_finite() && x.abs() <= f32::MAX as f64
}
