// throng vertex animation for Unity URP, written by `throng export --format unity`.
// Use it from a Shader Graph Custom Function node (File mode, function ThrongVAT) in the vertex
// stage, or #include it in a hand-written shader. It decodes the OpenVAT texture {{TEXTURE}}
// (docs/export.md "Unity"): offset = RemapMin + texel * (RemapMax - RemapMin) in Blender's axes;
// frame f is f texel rows below the vertex's uv1 (v up in Unity: subtract); normals sit half the
// texture further. Axes: the mesh {{MESH}} imported by glTFast (x mirrored), so Blender's
// (x, y, z) is Unity's (-x, z, -y). Frames are interpolated and two clips blended.
#ifndef THRONG_VAT_INCLUDED
#define THRONG_VAT_INCLUDED

// Remap of this export ({{REMAP}}).
#define THRONG_REMAP_MIN float3({{MIN}})
#define THRONG_REMAP_MAX float3({{MAX}})
#define THRONG_TEXTURE_HEIGHT {{HEIGHT}}.0

float3 ThrongBlenderToUnity(float3 b) { return float3(-b.x, b.z, -b.y); }

float3 ThrongOffset(UnityTexture2D vat, float2 uv, float frame)
{
    float3 t = SAMPLE_TEXTURE2D_LOD(vat.tex, vat.samplerstate, uv - float2(0.0, frame / THRONG_TEXTURE_HEIGHT), 0).rgb;
    return ThrongBlenderToUnity(THRONG_REMAP_MIN + t * (THRONG_REMAP_MAX - THRONG_REMAP_MIN));
}

float3 ThrongNormal(UnityTexture2D vat, float2 uv, float frame)
{
    float3 t = SAMPLE_TEXTURE2D_LOD(vat.tex, vat.samplerstate, uv - float2(0.0, 0.5 + frame / THRONG_TEXTURE_HEIGHT), 0).rgb;
    return ThrongBlenderToUnity(t * 2.0 - 1.0);
}

// Clip = (first frame, frame count, frames per second, 1 when looping), from {{REMAP}}'s
// animations (startFrame - 1, endFrame - startFrame + 1, framerate, looping).
void ThrongClipFrames(float4 clip, float t, out float f0, out float f1, out float w)
{
    float last = max(clip.y - 1.0, 0.0);
    float p = t * clip.z;
    p = (clip.w > 0.5 && last > 0.0) ? p - last * floor(p / last) : clamp(p, 0.0, last);
    float k = min(floor(p), last);
    f0 = clip.x + k;
    f1 = clip.x + min(k + 1.0, last);
    w = p - k;
}

void ThrongVAT_float(UnityTexture2D Vat, float2 Uv1, float3 PositionOS, float4 ClipA, float4 ClipB,
    float Time, float BlendB, out float3 Position, out float3 Normal)
{
    float a0, a1, wa, b0, b1, wb;
    ThrongClipFrames(ClipA, Time, a0, a1, wa);
    ThrongClipFrames(ClipB, Time, b0, b1, wb);
    float3 offA = lerp(ThrongOffset(Vat, Uv1, a0), ThrongOffset(Vat, Uv1, a1), wa);
    float3 offB = lerp(ThrongOffset(Vat, Uv1, b0), ThrongOffset(Vat, Uv1, b1), wb);
    float3 nA = lerp(ThrongNormal(Vat, Uv1, a0), ThrongNormal(Vat, Uv1, a1), wa);
    float3 nB = lerp(ThrongNormal(Vat, Uv1, b0), ThrongNormal(Vat, Uv1, b1), wb);
    float blend = saturate(BlendB);
    Position = PositionOS + lerp(offA, offB, blend);
    Normal = normalize(lerp(nA, nB, blend));
}
#endif
