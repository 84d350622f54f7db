#!/usr/bin/env python3
"""Writes a .gltf whose buffers and images are all data: URIs, from a .glb or a .gltf with
external files (a seed for the gltf_json fuzz target). Usage: embed.py IN OUT."""
import base64, json, os, struct, sys

def data_uri(mime, data):
    return "data:%s;base64,%s" % (mime, base64.b64encode(data).decode())

def main(src, dst):
    raw = open(src, "rb").read()
    bin_chunk = None
    if raw[:4] == b"glTF":
        json_len = struct.unpack_from("<I", raw, 12)[0]
        doc = json.loads(raw[20:20 + json_len])
        at = 20 + json_len
        if at + 8 <= len(raw):
            bin_len = struct.unpack_from("<I", raw, at)[0]
            bin_chunk = raw[at + 8:at + 8 + bin_len]
    else:
        doc = json.loads(raw.decode("utf-8-sig"))
    folder = os.path.dirname(src)
    for i, b in enumerate(doc.get("buffers", [])):
        uri = b.get("uri")
        if uri is None:
            data = bin_chunk[:b["byteLength"]] if bin_chunk is not None and i == 0 else b""
        elif uri.startswith("data:"):
            continue
        else:
            data = open(os.path.join(folder, uri), "rb").read()
        b["uri"] = data_uri("application/octet-stream", data)
    for img in doc.get("images", []):
        uri = img.get("uri")
        if uri and not uri.startswith("data:"):
            path = os.path.join(folder, uri)
            mime = "image/png" if uri.lower().endswith(".png") else "image/jpeg"
            img["uri"] = data_uri(mime, open(path, "rb").read())
    with open(dst, "w") as f:
        json.dump(doc, f, separators=(",", ":"))

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
