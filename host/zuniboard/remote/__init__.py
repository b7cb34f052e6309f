"""Remote games through an MQTT broker: the referee, the players' side, the transport.

``protocol`` (topics, messages, their checks), ``referee`` (the authority on a game: pure,
``step(now_ms, topic, payload)``), ``seat_client`` (a player's side: pure), ``transport``
(paho-mqtt at the edge), ``broker`` (the embedded broker), ``service`` (the referee's
network loop). docs/remote.md is the contract.
"""
