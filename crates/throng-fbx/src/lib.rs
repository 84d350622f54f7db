//! FBX import into the same source model the glTF importer fills (issue 34; work in progress).
