"""Electrical rules check over a ``circuit.Circuit``: the checks a schematic editor's
ERC makes, on the one circuit the netlist, schematic and BOM come from.

- every pin of every part is on a net, or marked no-connect (and then on none);
- no net has a single pin;
- every input is driven (an output, a power pin, an output through a series resistor)
  or pulled (a resistor to a power net, or the chip's own pull-up);
- no two outputs drive one net (pins of one part with one name, such as the Pico's
  GND pins, count once);
- every power input sits on a net with a power output (a supply);
- every enable input (a pin whose level switches a function on: a load switch's EN, a
  buffer's OE) has a defined default: tied to a rail, or, when an output (a GPIO) drives
  it, pulled by a resistor to its OFF level. A GPIO floats from power-up until the
  firmware sets it up, so a GPIO alone leaves the function undefined through reset.
"""

from __future__ import annotations

from zuniboard.hardware.circuit import GROUND, Circuit

DRIVERS = ("output", "power_out", "tri_state", "bidirectional")
HARD_DRIVERS = ("output", "power_out")


def check(circuit: Circuit) -> list[str]:
    """Every violation, one message each (empty: the circuit passes)."""
    errors: list[str] = []
    where: dict[tuple[str, str], str] = {}
    for net, nodes in circuit.nets.items():
        for node in nodes:
            if node in where:
                errors.append("%s is on two nets: %s and %s" % (circuit.node(*node), where[node], net))
            where[node] = net
    for part in circuit.parts.values():
        for pin in part.pins:
            on = where.get((part.ref, pin.number))
            if pin.number in part.no_connect:
                if on is not None:
                    errors.append(
                        "%s.%s(%s) is marked no-connect but is on net %s" % (part.ref, pin.number, pin.name, on)
                    )
            elif on is None:
                errors.append("%s.%s(%s) is not connected" % (part.ref, pin.number, pin.name))
    power_nets = {net for net, nodes in circuit.nets.items() if any(_kind(circuit, n) == "power_out" for n in nodes)}
    for net, nodes in circuit.nets.items():
        if len(set(nodes)) < 2:
            errors.append("net %s has a single pin: %s" % (net, ", ".join(circuit.node(*n) for n in nodes)))
        kinds = [(_kind(circuit, n), n) for n in nodes]
        drivers = {(n[0], circuit.parts[n[0]].pin(n[1]).name) for k, n in kinds if k in HARD_DRIVERS}
        if len(drivers) > 1:
            errors.append(
                "net %s has %d outputs: %s" % (net, len(drivers), ", ".join("%s(%s)" % d for d in sorted(drivers)))
            )
        driven = (
            any(k in DRIVERS for k, _ in kinds)
            or any(_pulled(circuit, n, net, power_nets) for _, n in kinds)
            or any(_series_driven(circuit, n, net) for _, n in kinds)
        )
        for k, n in kinds:
            if k == "input" and not driven:
                errors.append("input %s on net %s is neither driven nor pulled" % (circuit.node(*n), net))
            if k == "power_in" and net not in power_nets:
                errors.append("power pin %s on net %s has no supply" % (circuit.node(*n), net))
            if k == "open_collector" and not any(_pulled(circuit, m, net, power_nets) for _, m in kinds):
                errors.append("open-collector %s on net %s has no pull-up" % (circuit.node(*n), net))
        for _, n in kinds:
            active = circuit.parts[n[0]].pin(n[1]).enable
            if active:
                errors += _enable_default(circuit, n, active, net, power_nets)
    return errors


def _enable_default(circuit: Circuit, node: tuple[str, str], active: str, net: str, power_nets: set[str]) -> list[str]:
    """The enable rule (module docstring) for one enable pin."""
    name = circuit.node(*node)
    if net in power_nets:
        return []  # tied to a rail: always on or always off, by design
    pulls = [_pull_target(circuit, n, net, power_nets) for n in circuit.nets[net]]
    targets = [t for t in pulls if t is not None]
    if not targets:
        return [
            "enable %s on net %s has no defined default: no pull resistor (a GPIO floats through reset)" % (name, net)
        ]
    # OFF is ground for an active-high enable, a supply for an active-low one.
    wrong = [t for t in targets if (t == GROUND) != (active == "high")]
    if wrong:
        return [
            "enable %s (active %s) on net %s is pulled ON by default (to %s): its pull must hold it off"
            % (name, active, net, ", ".join(sorted(set(wrong))))
        ]
    return []


def _pull_target(circuit: Circuit, node: tuple[str, str], net: str, power_nets: set[str]) -> str | None:
    """The power net a resistor on ``node`` pulls ``net`` to, if it is a pull resistor."""
    part = circuit.parts[node[0]]
    pin = part.pin(node[1])
    if not (part.ref.startswith("R") and not part.ref.startswith("RN") and pin.kind == "passive"):
        return None
    other = next(p.number for p in part.pins if p.number != pin.number)
    target = circuit.net_of(part.ref, other)
    return target if target in power_nets and target != net else None


def _kind(circuit: Circuit, node: tuple[str, str]) -> str:
    return circuit.parts[node[0]].pin(node[1]).kind


def _pulled(circuit: Circuit, node: tuple[str, str], net: str, power_nets: set[str]) -> bool:
    """The pin pulls its net to a supply: a chip's own pull-up, or a resistor (or a
    resistor network's element) whose other end is on a power net."""
    part = circuit.parts[node[0]]
    pin = part.pin(node[1])
    if pin.pulled:
        return True
    if not (part.ref.startswith("R") and pin.kind == "passive"):
        return False
    if part.ref.startswith("RN"):
        others = ["1"] if pin.number != "1" else []
    else:
        others = [p.number for p in part.pins if p.number != pin.number]
    return any(circuit.net_of(part.ref, o) in power_nets and circuit.net_of(part.ref, o) != net for o in others)


def _series_driven(circuit: Circuit, node: tuple[str, str], net: str) -> bool:
    """The pin is one end of a series resistor whose other end is on a net with an
    output (a source termination: the Pico's SCK -> 100 Ohm -> every CLK)."""
    part = circuit.parts[node[0]]
    if not part.ref.startswith("R") or part.ref.startswith("RN") or len(part.pins) != 2:
        return False
    other = next(p.number for p in part.pins if p.number != node[1])
    other_net = circuit.net_of(part.ref, other)
    if other_net is None or other_net == net:
        return False
    return any(_kind(circuit, n) in ("output", "tri_state") for n in circuit.nets[other_net])
