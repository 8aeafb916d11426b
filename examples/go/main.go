package main

import "lifeloop-callback.dev/lifeloop"

func main() {
	lifeloop.Serve(func(req lifeloop.CallbackRequest, payloads []lifeloop.PayloadEnvelope) (lifeloop.CallbackResponse, error) {
		response := lifeloop.NewResponse(lifeloop.ReceiptStatusDelivered)
		response.Metadata = map[string]any{"event": string(req.Event), "payloads": len(payloads)}
		return response, nil
	})
}
