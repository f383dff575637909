// beq (I)
#pragma once

BRANCH(beq) { return RS1 == RS2; }
