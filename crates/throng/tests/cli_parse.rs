//! Every flag of every command parses into its field without a panic: for each subcommand, the
//! required arguments alone, then each option once with its default value and with each of its
//! possible values. A value parser whose type differs from its field's makes clap panic when
//! the field is read (`verify --encoding all` did, found by the `cli_args` fuzz target), and
//! only parsing a value shows it.

use clap::{CommandFactory, Parser};

/// `throng <path…>` plus the required arguments of `cmd`, with placeholder values.
fn required(path: &[String], cmd: &clap::Command) -> Vec<String> {
    let mut args: Vec<String> = std::iter::once("throng".to_string())
        .chain(path.iter().cloned())
        .collect();
    for a in cmd.get_arguments().filter(|a| a.is_required_set()) {
        let value = sample_value(a).unwrap_or_else(|| "x.glb".to_string());
        match a.get_long() {
            Some(long) => {
                args.push(format!("--{long}"));
                args.push(value);
            }
            None => args.push(value),
        }
    }
    args
}

/// A value the argument accepts: its first default or possible value.
fn sample_value(a: &clap::Arg) -> Option<String> {
    a.get_default_values()
        .first()
        .map(|v| v.to_string_lossy().into_owned())
        .or_else(|| {
            a.get_possible_values()
                .first()
                .map(|p| p.get_name().to_string())
        })
}

fn parse(args: &[String]) {
    let outcome = std::panic::catch_unwind(|| throng::Cli::try_parse_from(args).map(|_| ()));
    match outcome {
        Ok(Ok(())) => {}
        // Exclusive flags and the like are usage errors, not panics.
        Ok(Err(e)) => eprintln!("{args:?}: {}", e.kind()),
        Err(_) => panic!("parsing {args:?} panicked"),
    }
}

fn walk(path: &mut Vec<String>, cmd: &clap::Command, tried: &mut usize) {
    let subs: Vec<&clap::Command> = cmd.get_subcommands().collect();
    if !subs.is_empty() {
        for s in subs {
            path.push(s.get_name().to_string());
            walk(path, s, tried);
            path.pop();
        }
        return;
    }
    let base = required(path, cmd);
    parse(&base);
    *tried += 1;
    for a in cmd.get_arguments() {
        let (Some(long), false) = (a.get_long(), a.is_required_set()) else {
            continue;
        };
        if !a.get_action().takes_values() {
            let mut args = base.clone();
            args.push(format!("--{long}"));
            parse(&args);
            *tried += 1;
            continue;
        }
        let values: Vec<String> = a
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .chain(
                a.get_possible_values()
                    .iter()
                    .map(|p| p.get_name().to_string()),
            )
            .collect();
        for v in values {
            let mut args = base.clone();
            args.push(format!("--{long}"));
            args.push(v);
            parse(&args);
            *tried += 1;
        }
    }
}

#[test]
fn every_flag_parses_into_its_field() {
    let cmd = throng::Cli::command();
    cmd.clone().debug_assert();
    let mut tried = 0;
    walk(&mut Vec::new(), &cmd, &mut tried);
    assert!(tried > 80, "only {tried} command lines tried");
}

#[test]
fn verify_takes_every_encoding_or_all() {
    for e in ["all", "mat4-f32", "quat-snorm16"] {
        throng::Cli::try_parse_from(["throng", "verify", "in.gltf", "--encoding", e])
            .unwrap_or_else(|err| panic!("--encoding {e}: {err}"));
    }
    // The fuzz target's finding, byte for byte.
    let found = "verify\nin.gltf\n--encoding\nall\n--fps\n1e-9\n--json";
    let _ = throng::Cli::try_parse_from(std::iter::once("throng").chain(found.split('\n')));
}

#[test]
fn bake_takes_4_8_or_auto_influences() {
    use throng_bake::InfluenceCount;
    let base = ["throng", "bake", "in.glb", "-o", "out.glb"];
    // what `bake` reads: the parsed value of its `influences` field
    let parsed = |extra: &[&str]| -> Result<Option<InfluenceCount>, clap::Error> {
        let args = base.iter().chain(extra).copied();
        let m = throng::Cli::command().try_get_matches_from(args)?;
        let bake = m.subcommand_matches("bake").expect("the bake subcommand");
        Ok(bake.get_one::<InfluenceCount>("influences").copied())
    };
    for (good, want) in [
        ("4", InfluenceCount::Fixed(4)),
        ("8", InfluenceCount::Fixed(8)),
        ("auto", InfluenceCount::Auto),
        ("AUTO", InfluenceCount::Auto),
    ] {
        let got = parsed(&["--influences", good])
            .unwrap_or_else(|e| panic!("--influences {good} refused: {e}"));
        assert_eq!(got, Some(want), "--influences {good}");
    }
    for bad in ["6", "0", "all", ""] {
        let e = parsed(&["--influences", bad])
            .err()
            .unwrap_or_else(|| panic!("--influences {bad:?} accepted"));
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{bad:?}");
    }
    // Not given: none, so the settings file's count or automatic applies (the bake's summary
    // says which count it chose).
    assert_eq!(parsed(&[]).expect("no flag"), None);
}
