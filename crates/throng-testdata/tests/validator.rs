#[test]
fn validator_reports_a_real_file() {
    let Some(fox) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let Some(r) = throng_testdata::validate_gltf(&fox) else {
        return;
    };
    assert_eq!(r.errors, 0, "{:?}", r.messages);
}
