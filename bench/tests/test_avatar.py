import unittest
import xml.etree.ElementTree as ET

from gpickbench.scenarios import avatar

SVG = "{http://www.w3.org/2000/svg}"


class SvgTests(unittest.TestCase):
    def test_the_reference_drawing_is_the_avatar_of_a2(self):
        root = ET.fromstring(avatar.svg())
        self.assertEqual((root.get("width"), root.get("height"), root.get("viewBox")), ("500", "500", "0 0 500 500"))
        gradient = root.find(f"{SVG}defs/{SVG}linearGradient")
        self.assertEqual((gradient.get("x1"), gradient.get("x2"), gradient.get("y1"), gradient.get("y2")), ("0", "0", "0", "1"))
        self.assertEqual([s.get("stop-color") for s in gradient], ["#83b6ec", "#337fdc"])
        circle = root.find(f"{SVG}defs/{SVG}clipPath/{SVG}circle")
        self.assertEqual((circle.get("cx"), circle.get("cy"), circle.get("r")), ("250", "250", "250"))
        group = root.find(f"{SVG}g")
        self.assertEqual(group.get("clip-path"), "url(#c)")
        self.assertEqual(group.find(f"{SVG}rect").get("fill"), "url(#g)")
        text = group.find(f"{SVG}text")
        self.assertEqual(text.text, "AL")
        self.assertEqual({k: text.get(k) for k in ("x", "font-family", "font-weight", "font-size", "fill", "text-anchor")},
                         {"x": "250", "font-family": "DejaVu Sans", "font-weight": "bold", "font-size": "200",
                          "fill": "#ffffff", "text-anchor": "middle"})
        # The capitals centred: the baseline half their height (0.729 em) below the middle.
        self.assertAlmostEqual(float(text.get("y")), 250 + 0.729 * 200 / 2, delta=0.2)

    def test_it_follows_its_arguments(self):
        root = ET.fromstring(avatar.svg(size=120, gradient=("red", "blue"), text="X & Y", font="Noto Sans"))
        self.assertEqual(root.get("width"), "120")
        self.assertEqual(root.find(f"{SVG}defs/{SVG}clipPath/{SVG}circle").get("r"), "60")
        text = root.find(f"{SVG}g/{SVG}text")
        self.assertEqual((text.text, text.get("font-size"), text.get("font-family")), ("X & Y", "48", "Noto Sans"))


if __name__ == "__main__":
    unittest.main()
