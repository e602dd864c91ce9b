"""Baseline: Kimina's stack, a bare FastAPI route under uvicorn (Debian's python3-fastapi and
python3-uvicorn), parsing the JSON body and answering the bytes in BENCH_RESPONSE_FILE."""
import os
import socket
import sys

import uvicorn
from fastapi import FastAPI, Request, Response

path = os.environ.get("BENCH_RESPONSE_FILE")
BYTES = open(path, "rb").read() if path else b'{"okay":true}'
app = FastAPI()


@app.post("/api/v1/{tool}")
async def tool(tool: str, request: Request) -> Response:
    body = await request.json()
    status = 200 if isinstance(body, dict) else 400
    return Response(content=BYTES, media_type="application/json", status_code=status)


if __name__ == "__main__":
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    sys.stderr.write(f"BENCH_READY {port}\n")
    sys.stderr.flush()
    # uvicorn's defaults except the access log: the baselines log nothing (the daemon does).
    uvicorn.run(app, host="127.0.0.1", port=port, access_log=False, log_level="warning")
