"""dicetable hardware package: the table's edge, each device behind a small protocol with a shipped fake.

- ``frames``: ``Frame``/``FrameSource``, ``open_source(spec)`` (recorded:DIR, recorded:VIDEO, v4l2:N, usb:N,
  picam, fake), ``Recorder``/``record``, ``ReconnectingSource``.
- ``buttons``: debounce and hold-to-confirm state machines; ``GpioButtonPanel`` (gpiozero) and
  ``FakeButtonPanel``.
- ``secret``: ``SecretRound``, private choices revealed at once as engine ``SECRET`` inputs.
- ``leds``: ``LedMatrix``/``open_matrix`` (Adalight or tpm2 over any pyserial URL), wiring, pacing, reconnect;
  ``protocol_emu``: the ``emu://`` emulated matrix; ``font`` and ``patterns``: what the matrix shows.
- ``hwcheck``: the steps of ``dicetable hw-check``.

The motion gate (pixels only) lives in ``vision.motion``.
"""
