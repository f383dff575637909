// blt (I)
#pragma once

BRANCH(blt) { return SRS1 < SRS2; }
