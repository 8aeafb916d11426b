#!/usr/bin/env python3
from lifeloop_callback import CallbackResponse, ReceiptStatus, serve


def handle(request, payloads):
    return CallbackResponse(
        status=ReceiptStatus.DELIVERED,
        metadata={"event": request.event.value, "payloads": len(payloads)},
    )


if __name__ == "__main__":
    raise SystemExit(serve(handle))
