//! `GraphRuntime` through the API a front end uses: the twin scenario (`common/runtime_twin.rs`)
//! on the default backend, and the choice of side and the misuses it refuses.

#[path = "common/runtime_twin.rs"]
mod runtime_twin;

use runtime_twin::scenario::{scenario_clips, scenario_graph};
use throng_graph::GraphCrowd;
use throng_graph_gpu::{GraphRuntime, GraphRuntimeError, StepOn};

#[test]
fn a_graph_runtime_on_the_gpu_equals_one_on_the_cpu_its_events_a_frame_late() {
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    runtime_twin::twin(&gpu);
}

#[test]
fn the_choice_is_the_devices_and_a_misuse_is_an_error() {
    let clips = scenario_clips();
    let crowd = || GraphCrowd::new(scenario_graph(), &clips, 16).expect("graph crowd");
    // no device: Auto steps on the CPU and says why; Gpu is an error
    let rt = GraphRuntime::new(crowd(), &clips, None, StepOn::Auto).expect("auto");
    assert!(!rt.on_gpu());
    assert_eq!(rt.cpu_because(), Some("no GPU device"));
    assert!(matches!(
        GraphRuntime::new(crowd(), &clips, None, StepOn::Gpu),
        Err(GraphRuntimeError::NoDevice)
    ));
    let Some(gpu) = throng_render::device::test_gpu() else {
        return;
    };
    // a software adapter (lavapipe, llvmpipe in CI): Auto keeps the CPU step
    let rt = GraphRuntime::new(crowd(), &clips, Some(&gpu), StepOn::Auto).expect("auto");
    assert_eq!(rt.on_gpu(), !gpu.summary.is_software());
    if gpu.summary.is_software() {
        let why = rt.cpu_because().expect("a reason");
        assert!(why.contains("software adapter"), "{why}");
    }
    let mut rt = GraphRuntime::new(crowd(), &clips, Some(&gpu), StepOn::Gpu).expect("gpu");
    // a change the crowd refuses is not sent
    let speed = rt
        .param::<throng_graph::kind::Float>("speed")
        .expect("speed");
    assert!(rt.set_float(16, speed, 1.0).is_err());
    assert!(rt.set_float(0, speed, f32::NAN).is_err());
    rt.step(1.0 / 60.0).expect("step");
    // on the GPU only the transforms cross; on the CPU the records too
    let mut upload = throng_render::CrowdUpload::new(&gpu.device, throng_contract::Timing::Cpu);
    let transforms = vec![throng_contract::InstanceTransform::default(); 16];
    let sent = (rt.update_upload(&mut upload, &transforms, true)).expect("upload");
    assert_eq!(sent as usize, std::mem::size_of_val(transforms.as_slice()));
    // once on the GPU it stays there
    assert!(matches!(
        rt.place(&clips, Some(&gpu), StepOn::Cpu),
        Err(GraphRuntimeError::OnGpu)
    ));
    let mut rt = GraphRuntime::new(crowd(), &clips, Some(&gpu), StepOn::Cpu).expect("cpu");
    rt.step(1.0 / 60.0).expect("step");
    let sent = (rt.update_upload(&mut upload, &transforms, false)).expect("upload");
    assert_eq!(sent, 16 * 64);
    // a failed move leaves the runtime as it was, its device kept
    assert!(matches!(
        rt.place(&clips, None, StepOn::Gpu),
        Err(GraphRuntimeError::NoDevice)
    ));
    assert!(!rt.on_gpu());
    rt.update_upload(&mut upload, &transforms, false)
        .expect("upload");
    // another clip table than the crowd's is refused before any GPU work
    assert!(matches!(
        rt.place(&clips[..clips.len() - 1], Some(&gpu), StepOn::Gpu),
        Err(GraphRuntimeError::OtherClips)
    ));
    // without a device there is nothing to upload with
    let rt = GraphRuntime::new(crowd(), &clips, None, StepOn::Cpu).expect("cpu");
    assert!(matches!(
        rt.update_upload(&mut upload, &transforms, false),
        Err(GraphRuntimeError::NoDevice)
    ));
}
