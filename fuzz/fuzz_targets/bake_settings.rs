//! The bake settings JSON (docs/settings.md), as `throng bake --settings` reads it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use throng_bake::settings::SettingsFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(s) = SettingsFile::parse(text) {
        let _ = s.anchor_selection();
        let _ = s.root_motion_setting();
    }
});
