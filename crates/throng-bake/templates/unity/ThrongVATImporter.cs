// Import settings for throng's VAT exports (written by `throng export --format unity`): put this
// file in an Editor folder. VAT textures must reach the shader texel for texel: linear, no
// mipmaps, point filtering, no compression, no power-of-two rescale, 16 bits kept (RGBA Half).
// The mesh keeps its second UV set (the VAT UV) and its vertex order.
using UnityEditor;
using UnityEngine;

public class ThrongVATImporter : AssetPostprocessor
{
    static bool IsVat(string path) => path.EndsWith("_vat.png") || path.EndsWith("_vat.exr");

    void OnPreprocessTexture()
    {
        if (!IsVat(assetPath)) return;
        var importer = (TextureImporter)assetImporter;
        importer.sRGBTexture = false;
        importer.mipmapEnabled = false;
        importer.filterMode = FilterMode.Point;
        importer.wrapMode = TextureWrapMode.Clamp;
        importer.npotScale = TextureImporterNPOTScale.None;
        importer.textureCompression = TextureImporterCompression.Uncompressed;
        var settings = importer.GetDefaultPlatformTextureSettings();
        settings.format = TextureImporterFormat.RGBAHalf;
        importer.SetPlatformTextureSettings(settings);
    }

    void OnPreprocessModel()
    {
        if (!assetPath.Contains("{{FOLDER}}")) return;
        if (assetImporter is ModelImporter model)
        {
            model.weldVertices = false;
            model.optimizeMeshVertices = false;
            model.optimizeMeshPolygons = false;
        }
    }

    // Builds strip vertex streams no shader seems to use ("Optimize Mesh Data"); the VAT UV is
    // read through a custom function, so keep every stream.
    [InitializeOnLoadMethod]
    static void KeepMeshStreams()
    {
        PlayerSettings.stripUnusedMeshComponents = false;
    }
}
