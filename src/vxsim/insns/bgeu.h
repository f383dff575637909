// bgeu (I)
#pragma once

BRANCH(bgeu) { return RS1 >= RS2; }
